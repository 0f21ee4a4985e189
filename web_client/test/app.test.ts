import { describe, expect, it } from "vitest";
import { App } from "../src/app";

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

function newApp(): App {
  return new App(memoryStorage(), { hash: "", protocol: "http:", host: "127.0.0.1:1" } as Location);
}

describe("App.subscribe", () => {
  it("tells a view at once about a change made between its render and its subscription", () => {
    const app = newApp();
    const rendered = app.version;
    app.setPrefs({ hint: false }); // e.g. the socket opened before the view subscribed
    let calls = 0;
    app.subscribe(() => calls++, rendered);
    expect(calls).toBe(1);
  });

  it("does not call a view that is up to date until something changes, then on every change", () => {
    const app = newApp();
    let calls = 0;
    const off = app.subscribe(() => calls++, app.version);
    expect(calls).toBe(0);
    app.setPrefs({ hint: false });
    app.setPrefs({ hint: true });
    expect(calls).toBe(2);
    off();
    app.setPrefs({ hint: false });
    expect(calls).toBe(2);
  });
});

describe("App and the quick-match queue", () => {
  const welcome = (extra: object) => ({ t: "welcome", player: "p1", name: "Ann", token: "tok", room: null,
    queued: null, ...extra });

  function queuedApp(): { app: App; sent: any[]; on: (m: any) => void } {
    const app = newApp();
    const sent: any[] = [];
    app.send = (m) => { sent.push(m); return true; };
    const on = (m: any) => (app as any).onMessage(m);
    on(welcome({}));
    app.quick("dazhong", 8);
    on({ t: "queued", type: "dazhong", hands: 8, wait: 20, waiting: 1, fill: 20 });
    sent.length = 0;
    return { app, sent, on };
  }

  it("joins the queue again when a restarted server has forgotten it", () => {
    const { app, sent, on } = queuedApp();
    on(welcome({ queued: null }));
    expect(sent).toContainEqual({ t: "quick", type: "dazhong", hands: 8 }); // the same length again
    on({ t: "queued", type: "dazhong", hands: 8, wait: 20, waiting: 1, fill: 20 });
    expect(app.state.queued).toBe("dazhong");
  });

  it("keeps the queue's count and the server's estimate of when bots fill the table", () => {
    const { app, on } = queuedApp();
    const before = Date.now() / 1000;
    on({ t: "queued", type: "dazhong", hands: 8, wait: null, waiting: 3, fill: 12 }); // somebody joined
    expect(app.state.quickWaiting).toBe(3);
    expect(app.state.quickHands).toBe(8);
    expect(app.state.quickUntil! - before).toBeGreaterThanOrEqual(11.9);
    expect(app.state.quickUntil! - before).toBeLessThan(13);
    on({ t: "queued", type: "dazhong", hands: 8, wait: null, waiting: 2, fill: null }); // humans only
    expect(app.state.quickUntil).toBeNull();
  });

  it("does not when the server still has it queued or placed it at a table", () => {
    for (const extra of [{ queued: "dazhong" }, { room: { id: "r1" } }]) {
      const { sent, on } = queuedApp();
      on(welcome(extra));
      expect(sent.filter((m) => m.t === "quick")).toEqual([]);
    }
  });
});

describe("App and the public lists' search and page", () => {
  /** An app signed in over a fake connection that records what it is asked, with request ids. */
  function lobbyApp(): { app: App; asked: any[]; on: (m: any) => void } {
    const app = newApp();
    const asked: any[] = [];
    let id = 0;
    (app as any).conn = {
      send: (m: any) => { asked.push(m); return true; },
      request: (m: any) => { asked.push({ ...m, id: ++id }); return new Promise(() => {}); },
      lastId: () => id,
    };
    const on = (m: any) => (app as any).onMessage(m);
    on({ t: "welcome", player: "p1", name: "Ann", token: "tok", room: null, queued: null });
    return { app, asked, on };
  }
  const lastRooms = (asked: any[]) => asked.filter((m) => m.t === "rooms").at(-1);
  const answer = (m: any, page: number, pages: number, total: number) =>
    ({ t: "rooms", re: m.id, page, pages, total, rooms: [] });

  it("every refresh of the lobby keeps the search and the page", () => {
    const { app, asked, on } = lobbyApp();
    expect(lastRooms(asked)).toEqual({ t: "rooms", id: expect.any(Number) }); // the first page of all
    on(answer(lastRooms(asked), 0, 3, 140));
    app.lists.rooms.page(1);
    expect(lastRooms(asked)).toMatchObject({ page: 1 });
    app.lists.rooms.search(" Bo");
    expect(lastRooms(asked)).toMatchObject({ q: "Bo" });
    expect(lastRooms(asked).page).toBeUndefined(); // a new search: the first page
    on(answer(lastRooms(asked), 0, 2, 55));
    app.lists.rooms.page(1);
    on(answer(lastRooms(asked), 1, 2, 55));
    app.lists.rooms.refresh(); // the lobby's timer
    expect(lastRooms(asked)).toMatchObject({ q: "Bo", page: 1 });
    on({ t: "welcome", player: "p1", name: "Ann", token: "tok", room: null, queued: null }); // reconnected
    expect(lastRooms(asked)).toMatchObject({ q: "Bo", page: 1 });
    app.lists.rooms.search("Bo "); // the same search
    expect(asked.filter((m) => m.t === "rooms").at(-1)).toBe(lastRooms(asked));
  });

  it("asks for the last page when the one shown is gone", () => {
    const { app, asked, on } = lobbyApp();
    on(answer(lastRooms(asked), 0, 3, 140));
    app.lists.rooms.page(2);
    const n = asked.length;
    on(answer(lastRooms(asked), 2, 2, 90)); // rooms closed: two pages now
    expect(asked.length).toBe(n + 1);
    expect(lastRooms(asked)).toMatchObject({ page: 1 });
    expect(app.state.roomList.page).toBe(1);
  });

  it("tournaments likewise, their errors not shown", () => {
    const { app, asked, on } = lobbyApp();
    const last = () => asked.filter((m) => m.t === "tournaments").at(-1);
    app.lists.tournaments.search("cup");
    app.lists.tournaments.refresh();
    expect(last()).toMatchObject({ q: "cup" });
    on({ t: "tournaments", re: last().id, page: 0, pages: 3, total: 70, tournaments: [] });
    app.lists.tournaments.page(2);
    on({ t: "tournaments", re: last().id, page: 2, pages: 2, total: 45, tournaments: [] }); // some ended
    expect(last()).toMatchObject({ q: "cup", page: 1 });
    on({ t: "error", re: last().id, code: "tournament/disabled", message: "no" });
    expect(app.state.error).toBeNull();
  });

  it("asks for no tournaments before signing in", () => {
    const app = newApp();
    let asked = 0;
    (app as any).conn = { request: () => { asked++; return new Promise(() => {}); }, lastId: () => asked };
    app.lists.tournaments.refresh();
    expect(asked).toBe(0);
  });
});
