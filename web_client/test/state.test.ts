import { describe, expect, it } from "vitest";
import { inviteLink, parseRoute } from "../src/app";
import { defaultLang, setLang, t } from "../src/i18n";
import { emptyList, listAsked, listFellBack, listFields, listPage, listSearch } from "../src/lists";
import { backoff, decodeFrame, encodeFrame, wsUrl } from "../src/net";
import { AppState, countdown, displayName, estimateOffset, initialState, reduce } from "../src/state";
import type { Clock, HandRecord, RoomConfig, RoomInfo } from "../src/wire.gen";

// The fields these tests read (a new config field needs no change here).
const CONFIG = {
  type: "guobiao", private: true, hands: 4, first_turn_time: 30, turn_time: 15, claim_time: 8, claim_min: 1,
  bank: 60, bots: true, spectators: true,
} as RoomConfig;
const SEAT = { ready: false, connected: true, auto: null, blocked: false, no_win: false, substitute: false, replaces: null };
const INFO: RoomInfo = {
  id: "r0000abcd", type: "guobiao", host: "pA", config: CONFIG,
  phase: "lobby", matches: 0, spectators: 0, invite: "ABCD2345", table: null, quick: false, time_up: false,
  seats: [{ ...SEAT, id: "pA", bot: null }, null, null, null],
};
const LOBBY_CLOCK: Clock = { decision: null, deadline: null, started: null, free_until: null, banks: [60, 60, 60, 60], auto: [null, null, null, null] };

function signedIn(): AppState {
  return reduce(initialState(), { t: "welcome", player: "pA", name: "Ann", token: "f".repeat(32), login: null, room: null, queued: null }, 0);
}

describe("reducing server messages", () => {
  it("a claimed account's login reaches me; another player's account message does not", () => {
    let s = reduce(signedIn(), { t: "account", player: "pB", name: "Bo", login: "bo", hide_history: false }, 0);
    expect(s.me!.login).toBe(null);
    s = reduce(s, { t: "account", player: "pA", name: "Ann", login: "ann.lee", hide_history: false }, 0);
    expect(s.me!.login).toBe("ann.lee");
  });

  it("a closed room (idle after its match) is left: the lobby, not a stale ranking", () => {
    let s = reduce(signedIn(), { t: "snapshot", room: INFO.id, rseq: 1, n: 1, info: INFO, you: { id: "pA", seat: 0, host: true, hints: true }, game: null, clock: LOBBY_CLOCK, records: { matches: [], current: [] } }, 0);
    s = reduce(s, { t: "closed", room: "r9999ffff", rseq: 1 }, 0);
    expect(s.room!.id).toBe(INFO.id); // another room's message changes nothing
    const ranked = { ...s, matchResult: { match: 0, ids: ["pA"], scores: [0], ranking: [], hands: [] } as any };
    s = reduce(s, { t: "closed", room: INFO.id, rseq: 2 }, 0);
    expect(s.room).toBe(null);
    expect(s.matchResult).toBe(null);
    // A final ranking on screen stays there; the room is marked gone (Back to the lobby leaves locally).
    const kept = reduce(ranked, { t: "closed", room: INFO.id, rseq: 2 }, 0);
    expect(kept.matchResult).not.toBe(null);
    expect(kept.roomGone).toBe(true);
  });

  it("welcome, then a room's snapshot and messages", () => {
    let s = signedIn();
    expect(s.me).toEqual({ player: "pA", name: "Ann", token: "f".repeat(32), login: null });
    expect(s.names.pA).toBe("Ann");
    s = reduce(s, { t: "snapshot", room: INFO.id, rseq: 1, n: 1, info: INFO, you: { id: "pA", seat: 0, host: true, hints: true }, game: null, clock: LOBBY_CLOCK, records: { matches: [], current: [] } }, 0);
    expect(s.room!.invite).toBe("ABCD2345");
    expect(s.you).toEqual({ id: "pA", seat: 0, host: true, hints: true });
    const seats = [INFO.seats[0], { ...SEAT, id: "bot-1", bot: "fan", ready: true }, null, null];
    s = reduce(s, { t: "room", room: INFO.id, rseq: 2, n: 2, info: { ...INFO, seats } }, 0);
    expect(s.room!.seats[1]!.bot).toBe("fan");
    expect(s.needSnapshot).toBe(false);
  });

  it("a match start makes a fresh table that the game messages fill", () => {
    let s = signedIn();
    s = reduce(s, { t: "room", n: 1, info: INFO }, 0);
    s = reduce(s, { t: "room", n: 2, info: { ...INFO, phase: "playing" as const } }, 0);
    expect(s.game).not.toBeNull();
    s = reduce(s, {
      t: "game", n: 3, legal: [{ a: "discard", tile: 3 }], to_act: true, seq: 0,
      clock: { decision: "turn", player: 0, started: 100, free_until: 130, deadline: 190, banks: [60, 60, 60, 60], auto: [null, null, null, null] },
      events: [
        { t: "hand_start", hand: 0, round: 0, seats: [0, 1, 2, 3], scores: [0, 0, 0, 0], seq: 0 },
        { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0, hand: 0 },
        { t: "deal", seat: 0, count: 14, tiles: [3, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], hand: 0 },
        { t: "turn", seat: 0, seq: 0, hand: 0 },
      ],
    }, 99.5);
    expect(s.game!.seat).toBe(0);
    expect(s.game!.hand).toHaveLength(14);
    expect(s.game!.legal).toHaveLength(1);
    expect(s.clockOffset).toBeCloseTo(0.5);
  });

  it("asks for a snapshot when a numbered push is missing", () => {
    let s = reduce(signedIn(), { t: "room", n: 1, info: INFO }, 0);
    s = reduce(s, { t: "room", n: 3, info: INFO }, 0);
    expect(s.needSnapshot).toBe(true);
  });

  it("results, reveals, errors, leaving", () => {
    let s = reduce(signedIn(), { t: "room", n: 1, info: { ...INFO, phase: "playing" as const } }, 0);
    const rec: HandRecord = {
      match: 1, hand: 0, round: 0, dealer: 0, seats: [0, 1, 2, 3], ids: ["pA", "bot-1", "bot-2", "bot-3"], winner: null,
      discarder: null, self_drawn: false, robbed: false, tile: null, fans: [], total: 0, payments: [0, 0, 0, 0],
      penalties: [0, 0, 0, 0], deltas: [0, 0, 0, 0], scores: [0, 0, 0, 0], void: false,
    };
    s = reduce(s, { t: "hand_result", n: 2, record: rec }, 0);
    expect(s.handResult).toEqual(rec);
    expect(s.records.current).toHaveLength(1);
    s = reduce(s, { t: "reveal", match: 1, id: 42, seed: 7, salt: "ab", commitment: "cd" }, 0);
    expect(s.reveals[1].id).toBe(42);
    s = reduce(s, { t: "error", code: "room/full", message: "every seat is taken" }, 5);
    expect(s.error).toEqual({ code: "room/full", message: "every seat is taken", at: 5 });
    expect(reduce(s, { t: "error", code: "action/stale", message: "late" }, 6).error!.at).toBe(5); // not shown
    s = reduce(s, { t: "left", n: 3 }, 0);
    expect(s.room).toBeNull();
  });
});

describe("clocks", () => {
  it("estimates the server's clock from decision starts, never past their whole time", () => {
    expect(estimateOffset(null, { started: 1010 } as any, 1000)).toBe(10);
    expect(estimateOffset(10, { started: 1005 } as any, 1000)).toBe(10);
    const clock = { decision: "turn", started: 100, free_until: 115, deadline: 175, banks: [60], auto: [] } as any;
    expect(countdown(clock, 0, 105)).toEqual({ left: 70, free: 10, bank: 60 });
    expect(countdown(clock, 0, 120)).toEqual({ left: 55, free: 0, bank: 55 });
    expect(countdown(clock, -5, 100)!.left).toBe(75); // a late estimate shows at most the whole time
    expect(countdown({ ...clock, deadline: null }, 0, 0)).toBeNull();
  });
});

describe("names, routes, frames", () => {
  it("names players, bots and strangers", () => {
    const s = signedIn();
    expect(displayName(s, "pA")).toBe("Ann");
    expect(displayName(s, "bot-2", "机器人")).toBe("机器人 2");
    expect(displayName(s, "pZZ")).toBe("pZZ");
  });

  it("look-alike names as the server numbers them per room: the table's own, whatever other lists said", () => {
    // Two players called Ann at one table: the room numbers the second. In the rooms list pB sits alone
    // elsewhere (plain "Ann"), and a tournament numbers them the other way round.
    let s = signedIn();
    const seats = [{ ...SEAT, id: "pA", bot: null }, { ...SEAT, id: "pB", bot: null }, null, null];
    const info = { ...INFO, seats, names: { pA: "Ann", pB: "Ann #2" } };
    s = reduce(s, { t: "snapshot", room: INFO.id, rseq: 1, n: 1, info, you: { id: "pA", seat: 0, host: true, hints: true }, game: null, clock: LOBBY_CLOCK, records: { matches: [], current: [] } }, 0);
    const other = { room: "r1111ffff", type: "guobiao", phase: "lobby", hands: 4, spectators: 0,
      seats: [{ id: "pB", bot: null }, null, null, null], names: { pB: "Ann" } };
    s = reduce(s, { t: "rooms", rooms: [other] } as any, 0);
    expect([displayName(s, "pA"), displayName(s, "pB")]).toEqual(["Ann", "Ann #2"]); // at the table
    expect(displayName(s, "pB", "Bot", s.rooms[0].names)).toBe("Ann"); // in the rooms list
    s = reduce(s, { t: "room", room: INFO.id, rseq: 2, n: 2, info } as any, 0);
    s = reduce(s, { t: "rooms", rooms: [other] } as any, 0); // a later list changes nothing at the table
    expect(displayName(s, "pB")).toBe("Ann #2");
    const view = { names: { pB: "Ann", pA: "Ann #2" } };
    expect(displayName(s, "pA", "Bot", view.names)).toBe("Ann #2"); // a page with its own names uses them
  });

  it("reads invite and replay links", () => {
    expect(parseRoute("#join=ABCD2345")).toEqual({ join: "ABCD2345" });
    expect(parseRoute("#replay=12")).toEqual({ replay: "12" });
    expect(parseRoute("#replay=12&hand=3")).toEqual({ replay: "12", hand: 3 });
    expect(parseRoute("#replay=12&hand=x")).toEqual({ replay: "12" });
    expect(parseRoute("")).toEqual({});
    expect(inviteLink("http://x:1", "ABCD2345")).toBe("http://x:1/#join=ABCD2345");
    expect(wsUrl({ protocol: "https:", host: "m.example" })).toBe("wss://m.example/ws");
  });

  it("encodes msgpack frames without undefined fields, integers as integers", () => {
    const bytes = encodeFrame({ t: "act", action: { a: "discard", tile: 5, seq: 12 }, id: undefined });
    expect(decodeFrame(bytes)).toEqual({ t: "act", action: { a: "discard", tile: 5, seq: 12 } });
    expect(bytes[0]).toBe(0x82); // a map of two entries: no "id": nil
    expect(() => decodeFrame(encodeFrame([1, 2] as any))).toThrow();
  });

  it("backs off between reconnections, up to 8 s", () => {
    expect(backoff(0, () => 0.5)).toBe(500);
    expect(backoff(3, () => 0.5)).toBe(4000);
    expect(backoff(10, () => 1)).toBe(10000);
  });

  it("speaks Chinese and English", () => {
    expect(defaultLang(["en-GB", "zh"])).toBe("en");
    expect(defaultLang(["fr"])).toBe("zh");
    setLang("en");
    expect(t("handOf", 1, 4)).toBe("Hand 1 of 4");
    setLang("zh");
    expect(t("handOf", 1, 4)).toBe("第 1/4 盘");
  });
});

describe("a public list's search and page (rooms, tournaments)", () => {
  const room = (id: string) => ({ room: id, type: "guobiao", phase: "lobby", hands: 4, seats: [null, null, null, null], spectators: 0 });
  const rooms = (re: number, page: number, pages: number, total: number, ids: string[]) =>
    ({ t: "rooms", re, page, pages, total, rooms: ids.map(room) }) as any;

  it("asks with the search trimmed and at most 40 characters, and the page; nothing for the first page of all", () => {
    const l = emptyList();
    expect(listFields(l)).toEqual({});
    expect(listFields({ ...l, q: "   " })).toEqual({});
    expect(listFields({ ...l, q: "  Ann ", page: 2 })).toEqual({ q: "Ann", page: 2 });
    expect(listFields({ ...l, q: "x".repeat(50) }).q).toHaveLength(40);
  });

  it("a new search starts at the first page; a space typed after it does not", () => {
    const l = { ...emptyList(), q: "ann", page: 3, pages: 5 };
    expect(listSearch(l, "anna").page).toBe(0);
    expect(listSearch(l, "ann ").page).toBe(3);
    expect(listSearch(l, "ann ").q).toBe("ann ");
  });

  it("pages stay within the list", () => {
    const l = { ...emptyList(), pages: 3 };
    expect(listPage(l, 2).page).toBe(2);
    expect(listPage(l, 7).page).toBe(2);
    expect(listPage(l, -1).page).toBe(0);
  });

  it("takes the answer to the latest ask, with the search it answers; an older one is dropped", () => {
    let s = signedIn();
    s = { ...s, roomList: listAsked(listSearch(s.roomList, "bo"), 7) };
    s = { ...s, roomList: listAsked(listSearch(s.roomList, "bob"), 8) };
    const late = reduce(s, rooms(7, 0, 2, 60, ["r00000001"]), 0); // an answer to "bo", overtaken
    expect(late.rooms).toEqual([]);
    expect(late.roomList.shownQ).toBe("");
    s = reduce(s, rooms(8, 0, 1, 1, ["r00000002"]), 0);
    expect(s.rooms.map((r) => r.room)).toEqual(["r00000002"]);
    expect(s.roomList).toMatchObject({ q: "bob", shownQ: "bob", page: 0, pages: 1, total: 1 });
    expect(listFellBack(s.roomList, { re: 8, page: 0 })).toBe(false);
  });

  it("a page gone since (rooms closed) falls back to the last one, keeping the list until that arrives", () => {
    let s = signedIn();
    s = { ...s, roomList: listAsked({ ...s.roomList, pages: 3 }, 1) };
    s = reduce(s, rooms(1, 0, 3, 120, ["r00000001"]), 0);
    s = { ...s, roomList: listAsked(listPage(s.roomList, 2), 2) };
    const msg = rooms(2, 2, 2, 70, []); // the server answers an empty page 2 of 2
    s = reduce(s, msg, 0);
    expect(s.rooms.map((r) => r.room)).toEqual(["r00000001"]);
    expect(s.roomList).toMatchObject({ page: 1, pages: 2, total: 70 });
    expect(listFellBack(s.roomList, msg)).toBe(true);
    expect(listFields(s.roomList)).toEqual({ page: 1 });
  });

  it("tournaments likewise; a search that finds nothing says which search", () => {
    let s = signedIn();
    s = { ...s, tournamentList: listAsked(listSearch(s.tournamentList, "cup"), 4) };
    s = reduce(s, { t: "tournaments", re: 4, page: 0, pages: 1, total: 0, tournaments: [] } as any, 0);
    expect(s.tournamentList).toMatchObject({ shownQ: "cup", total: 0 });
  });
});
