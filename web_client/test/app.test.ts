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
