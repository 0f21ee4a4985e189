import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseRoute, tournamentLink } from "../src/app";
import { STRINGS, errorText, setLang } from "../src/i18n";
import { AppState, initialState, reduce } from "../src/state";
import {
  SanctionRecord, TournamentDelta, TournamentView, applyDelta, buildConfig, canCheckIn, canRuleIntentional, canRegister, canStart,
  canUnregister, datetimeLocal, botsToEnter, canRemoveBot, competitorBot,
  formatStd, formatWhen, handInPlay, minutesUntil, myTable, openForSignUp, ownSanctions, parseDatetimeLocal,
  publicNotices,
} from "../src/tournament";

function signedIn(player = "pA"): AppState {
  return reduce(initialState(), { t: "welcome", player, name: "Ann", token: "f".repeat(32), login: null, room: null, queued: null }, 0);
}

function sanction(id: number, over: Partial<SanctionRecord> = {}): SanctionRecord {
  return {
    id, kind: "points", player: "pA", session: 1, table: "1-1", hand: 1, points: 10, reason: "slow play", by: "pR",
    at: 1000, public: false, offence: null, reported: null, cancelled: null, ...over,
  };
}

const SEATS = ["pA", "pB", "pC", null].map((player, seat) => ({
  seat, player, bot: player === null, substituted: null, ranked: player !== null, points: [8, -8], late: 0,
  forfeit: false, score: 500, std12: null, std: null,
}));

/** The shape of rooms/tournament/tournament.py Tournament.view() for player ``you``. */
function view(over: Partial<TournamentView> = {}, you = "pA"): TournamentView {
  return {
    id: "t1a2b3c4d",
    config: {
      name: "Spring cup", type: "guobiao", sessions: 2, hands: 4, time_limit: 0, time_up: "void", seating: "swiss",
      starts: [], checkin_before: 1800, max_players: 64, min_players: 4, fill_bots: true, checkin_required: true,
      turn_time: 15, claim_time: 8, bank: 60, false_win_penalty: false, duplicate: false,
    },
    organiser: "pR", referee: "pR", state: "running", created: 0, cancel_reason: null,
    you: { id: you, roles: you === "pR" ? ["organiser", "referee"] : [], registered: you !== "pR" },
    session: 1,
    players: [
      { id: "pA", team: "Red", order: 1, status: "active", checked_in: true, table: "1-1" },
      { id: "pB", team: null, order: 2, status: "active", checked_in: true, table: "1-1" },
      { id: "pC", team: "Red", order: 3, status: "active", checked_in: false, table: "1-1" },
    ],
    sessions: [
      {
        index: 1, scheduled: null, start: 100, ended: null, state: "running", checkin_opens: null, byes: [], commitment: null,
        tables: [{
          table: "1-1", session: 1, number: 1, state: "playing", started: 120, time_up: false,
          hands: [{ hand: 1, deltas: [8, -8, 0, 0], void: false, winner: 0, discarder: 1, self_drawn: false, total: 8 }],
          seats: SEATS,
        }],
      },
      { index: 2, scheduled: null, start: null, ended: null, state: "pending", checkin_opens: null, byes: [], commitment: null, tables: [] },
    ],
    standings: [], teams: [], suspended: [], sanctions: [], notices: [], duplicate: null,
    ...over,
  };
}

describe("标准分 and times as shown", () => {
  it("shows the ×12 standard score with up to two decimals", () => {
    expect(formatStd(48)).toBe("4");
    expect(formatStd(24)).toBe("2");
    expect(formatStd(21)).toBe("1.75"); // four tied
    expect(formatStd(36)).toBe("3"); // two tied first
    expect(formatStd(18)).toBe("1.5");
    expect(formatStd(28)).toBe("2.33"); // three tied first: 84/3
    expect(formatStd(4)).toBe("0.33");
    expect(formatStd(0)).toBe("0");
    expect(formatStd(120)).toBe("10");
    expect(formatStd(null)).toBe("–");
  });

  it("formats times in the viewer's zone, with the day only when it is not today", () => {
    const now = new Date(2025, 4, 10, 9, 0).getTime() / 1000;
    expect(formatWhen(new Date(2025, 4, 10, 14, 5).getTime() / 1000, now, "en")).toBe("14:05");
    expect(formatWhen(new Date(2025, 4, 11, 8, 30).getTime() / 1000, now, "en")).toBe("5-11 08:30");
    expect(formatWhen(new Date(2025, 4, 11, 8, 30).getTime() / 1000, now, "zh")).toBe("5月11日 08:30");
    expect(minutesUntil(1000 + 61, 1000)).toBe(2);
    expect(minutesUntil(1000 - 61, 1000)).toBe(-2);
  });

  it("reads and writes datetime-local values as local time", () => {
    const d = new Date(2025, 0, 2, 3, 4);
    expect(datetimeLocal(d)).toBe("2025-01-02T03:04");
    expect(parseDatetimeLocal("2025-01-02T03:04")).toBe(d.getTime() / 1000);
    expect(parseDatetimeLocal("soon")).toBeNull();
  });
});

describe("the create form's config", () => {
  const now = new Date(2025, 4, 10, 9, 0).getTime() / 1000;
  const form = {
    name: " Cup ", type: "guobiao", sessions: 3, hands: 16, timeLimit: 0, timeUp: "void" as const, seating: "snake",
    scheduled: true, firstStart: "2025-05-10T09:15", gap: 90, referee: "",
  };

  it("sends integer start times, one per session, and no referee when it is yourself", () => {
    const r = buildConfig(form, "pR", now);
    expect("config" in r).toBe(true);
    const c = (r as { config: Record<string, any> }).config;
    const first = now + 15 * 60;
    expect(c).toEqual({ name: "Cup", type: "guobiao", sessions: 3, hands: 16, time_limit: 0, seating: "snake", starts: [first, first + 5400, first + 10800] });
    expect(c.starts.every((x: number) => Number.isInteger(x))).toBe(true);
    expect(buildConfig({ ...form, referee: "pR" }, "pR", now)).toEqual(r);
  });

  it("leaves later sessions to the organiser with no gap, and every session without a schedule", () => {
    const c = (buildConfig({ ...form, gap: 0 }, "pR", now) as any).config;
    expect(c.starts).toEqual([now + 900, null, null]);
    const manual = (buildConfig({ ...form, scheduled: false, referee: "pZ", timeLimit: 90, timeUp: "finish" }, "pR", now) as any).config;
    expect(manual.starts).toBeUndefined();
    expect(manual.referee).toBe("pZ");
    expect(manual.time_limit).toBe(90);
    expect(manual.time_up).toBe("finish");
  });

  it("asks for a duplicate event only when the box is ticked", () => {
    expect((buildConfig({ ...form, duplicate: true }, "pR", now) as any).config.duplicate).toBe(true);
    expect("duplicate" in (buildConfig(form, "pR", now) as any).config).toBe(false);
  });

  it("refuses what the server would", () => {
    expect(buildConfig({ ...form, name: "  " }, "pR", now)).toEqual({ error: "name" });
    expect(buildConfig({ ...form, firstStart: "2025-05-10T08:00" }, "pR", now)).toEqual({ error: "past" });
    expect(buildConfig({ ...form, firstStart: "" }, "pR", now)).toEqual({ error: "start" });
    expect(buildConfig({ ...form, hands: 2.5 }, "pR", now)).toEqual({ error: "numbers" });
  });
});

describe("what the viewer may do", () => {
  it("finds your table and the hand in play", () => {
    const v = view();
    expect(myTable(v)!.table).toBe("1-1");
    expect(handInPlay(myTable(v)!, 4)).toBe(2);
    expect(handInPlay({ ...myTable(v)!, state: "waiting" }, 4)).toBeNull();
  });

  it("the organiser enters the server's bots before the start and takes them out", () => {
    const reg = view({ state: "registering", session: null, sessions: [
      { index: 1, scheduled: 5000, start: null, ended: null, state: "pending", checkin_opens: 3200, byes: [], commitment: null, tables: [] },
    ], players: [...view().players, { id: "bot:greedy", team: null, order: 4, status: "active", checked_in: false, table: null }] }, "pR");
    expect(competitorBot("bot:greedy")).toBe("greedy");
    expect(competitorBot("pA")).toBeNull();
    expect(botsToEnter(reg, ["greedy", "other"], 1000)).toEqual(["other"]); // greedy is in already
    expect(botsToEnter(reg, ["greedy", "other"], 5000)).toEqual([]); // the start passed
    expect(botsToEnter({ ...reg, you: { id: "pA", roles: [], registered: true } }, ["other"], 1000)).toEqual([]); // not the organiser
    expect(botsToEnter({ ...reg, config: { ...reg.config, max_players: 4 } }, ["other"], 1000)).toEqual([]); // full
    expect(botsToEnter({ ...reg, state: "running" }, ["other"], 1000)).toEqual([]);
    expect(canRemoveBot(reg, "bot:greedy", 1000)).toBe(true);
    expect(canRemoveBot(reg, "pA", 1000)).toBe(false); // a player unregisters themself
    expect(canRemoveBot(reg, "bot:greedy", 5000)).toBe(false);
    expect(canRemoveBot({ ...reg, you: { id: "pA", roles: [], registered: true } }, "bot:greedy", 1000)).toBe(false);
  });

  it("the external bots' errors read in Chinese", () => {
    setLang("zh");
    for (const code of ["tournament/no_bot", "tournament/bot_busy", "room/bots_disabled"]) {
      expect(errorText(code, "English message")).toMatch(/机器人/);
    }
    setLang("en");
    expect(errorText("tournament/bot_busy", "English message")).toBe("English message");
    setLang("zh");
  });

  it("registration, check-in and the organiser's start", () => {
    const reg = view({ state: "registering", session: null, sessions: [
      { index: 1, scheduled: 5000, start: null, ended: null, state: "pending", checkin_opens: 3200, byes: [], commitment: null, tables: [] },
    ] }, "pA");
    expect(canRegister({ ...reg, you: { id: "pZ", roles: [], registered: false } }, 1000)).toBe(true);
    expect(canRegister({ ...reg, you: { id: "pZ", roles: [], registered: false } }, 5000)).toBe(false); // the start passed
    expect(canUnregister(reg, 1000)).toBe(true);
    const notIn = { ...reg, players: reg.players.map((p) => ({ ...p, checked_in: false, table: null })) };
    expect(canCheckIn(notIn, 1000)).toBe(false); // opens at 3200
    expect(canCheckIn(notIn, 3300)).toBe(true);
    expect(canCheckIn(reg, 3300)).toBe(false); // already checked in
    expect(canStart(view({ session: null }, "pR"))).toBe(true);
    expect(canStart(view({}, "pR"))).toBe(false); // a session is being played
    expect(canStart(view({ session: null }, "pA"))).toBe(false); // not the organiser
    // late for a table that waits for you
    const late = view({ sessions: [{ ...view().sessions[0], tables: [{ ...view().sessions[0].tables[0], state: "waiting" }] }] }, "pC");
    expect(canCheckIn(late, 0)).toBe(true);
  });

  it("your sanctions (cancelled ones too) and the public notices", () => {
    const v = view({
      sanctions: [
        sanction(1),
        sanction(2, { cancelled: { by: "pR", at: 2000, reason: "wrong player" } }),
        sanction(3, { kind: "notice", player: null, points: 0, public: true, table: null, hand: null }),
        sanction(4, { player: "pB", public: true }),
      ],
      notices: [sanction(3, { kind: "notice", player: null, points: 0, public: true, table: null, hand: null })],
    });
    expect(ownSanctions(v).map((r) => r.id)).toEqual([2, 1]);
    expect(publicNotices(v).map((r) => r.id)).toEqual([4, 3]);
  });

  it("an open sign-up in the list", () => {
    const x = { id: "t1", name: "Every 10 min #3", type: "guobiao", state: "registering", players: 2, max_players: 64, sessions: 1, session: null, next_start: 2000, organiser: "system" };
    expect(openForSignUp(x, 1000)).toBe(true);
    expect(openForSignUp({ ...x, next_start: null }, 1000)).toBe(false);
    expect(openForSignUp({ ...x, state: "running" }, 1000)).toBe(false);
  });
});

describe("reducing tournament messages", () => {
  it("keeps the list and every view pushed, with names when the server sends them", () => {
    let s = signedIn();
    const summary = {
      id: "t1a2b3c4d", name: "Spring cup", type: "guobiao", state: "registering", players: 2, max_players: 64,
      sessions: 1, session: null, next_start: null, organiser: "pA",
    };
    s = reduce(s, { t: "tournaments", tournaments: [summary], page: 0, pages: 1, total: 1 }, 0);
    expect(s.tournaments).toHaveLength(1);
    s = reduce(s, { t: "tournament", tournament: view({ names: { pB: "Bo" } }) }, 0);
    expect(s.tviews.t1a2b3c4d.config.name).toBe("Spring cup");
    expect(s.names.pB).toBe("Bo");
    s = reduce(s, { t: "tournament", tournament: view({ state: "finished" }) }, 0);
    expect(s.tviews.t1a2b3c4d.state).toBe("finished");
  });

  it("banners for public notices and your own sanctions, not for other players' private ones", () => {
    let s = signedIn();
    const ev = (r: SanctionRecord, event: "sanction" | "sanction_cancelled" = "sanction") => ({ t: "tournament_event" as const, tournament: "t1a2b3c4d", tseq: 9, event, sanction: r });
    s = reduce(s, ev(sanction(1, { player: "pB" })), 5);
    expect(s.notices).toHaveLength(0);
    s = reduce(s, ev(sanction(2)), 6);
    expect(s.notices.map((n) => n.kind)).toEqual(["mine"]);
    s = reduce(s, ev(sanction(3, { kind: "notice", player: null, public: true })), 7);
    s = reduce(s, ev(sanction(3, { kind: "notice", player: null, public: true })), 8); // the same twice: one banner
    expect(s.notices.map((n) => n.kind)).toEqual(["mine", "public"]);
    s = reduce(s, ev(sanction(2, { cancelled: { by: "pR", at: 9, reason: "appeal" } }), "sanction_cancelled"), 9);
    expect(s.notices.map((n) => n.kind)).toEqual(["public", "cancelled"]);
    s = reduce(s, { t: "tournament_event", tournament: "t1a2b3c4d", tseq: 10, event: "cancelled", reason: "too few players" }, 10);
    expect(s.notices[s.notices.length - 1].kind).toBe("tournament_cancelled");
    expect(s.notices.length).toBeLessThanOrEqual(4);
  });

  it("remembers which room is your tournament table", () => {
    let s = signedIn();
    s = reduce(s, { t: "table", tournament: "t1a2b3c4d", table: "1-1", room: "r0000abcd" }, 0);
    expect(s.tables.r0000abcd).toEqual({ tournament: "t1a2b3c4d", table: "1-1" });
    s = reduce(s, { t: "substituted", room: "r0000abcd", player: 2, n: 1 }, 0);
    expect(s.notices[0].kind).toBe("substituted");
  });
});

describe("routes and words", () => {
  it("#tournament=<id> opens a tournament and can be shared", () => {
    expect(parseRoute("#tournament=t1a2b3c4d")).toEqual({ tournament: "t1a2b3c4d" });
    expect(tournamentLink("http://h:1", "t1a2b3c4d")).toBe("http://h:1/#tournament=t1a2b3c4d");
  });

  it("every tournament word has Chinese and English", () => {
    for (const [k, [zh, en]] of Object.entries(STRINGS)) {
      expect(zh, k).not.toBe("");
      expect(en, k).not.toBe("");
    }
    for (const k of ["warning", "points", "stop_win", "suspend", "notice", "late", "forfeit", "offence", "false_win"]) {
      expect(STRINGS).toHaveProperty(`kind_${k}`);
    }
  });
});

describe("the referee's 有意诈和 ruling (R98 第十四条6)", () => {
  const hand = (away: number) => ({ tiles: [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30], drawn: 31, melds: [], from_ready: away });
  const foul = (away: number | null, over: Partial<SanctionRecord> = {}) =>
    sanction(7, { kind: "false_win", points: 0, by: "system", offence: "false_win", evidence: away === null ? null : hand(away), ...over });

  it("is offered to the referee on a false win two or more tiles from ready", () => {
    const ref = view({}, "pR");
    expect(canRuleIntentional(ref, foul(2))).toBe(true);
    expect(canRuleIntentional(ref, foul(5))).toBe(true);
  });

  it("is not offered for 诈和 one tile from ready, without evidence, cancelled, suspended, or to others", () => {
    const ref = view({}, "pR");
    expect(canRuleIntentional(ref, foul(1))).toBe(false);
    expect(canRuleIntentional(ref, foul(null))).toBe(false);
    expect(canRuleIntentional(ref, foul(3, { cancelled: { by: "pR", at: 1, reason: "x" } }))).toBe(false);
    expect(canRuleIntentional(view({ suspended: ["pA"] }, "pR"), foul(3))).toBe(false);
    expect(canRuleIntentional(ref, foul(3, { kind: "points" }))).toBe(false);
    expect(canRuleIntentional(view({}, "pA"), foul(3))).toBe(false);
  });
});

describe("tournament deltas", () => {
  const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

  it("applied to the first view, give the server's whole view after every change", () => {
    // rooms/tournament/delta.py builds them; the fixture records, per viewer, each delta and the view after it.
    const out = execFileSync(process.env.PYTHON ?? "python3", [TOOL, "tournament"], { maxBuffer: 64 << 20 });
    const fx = JSON.parse(out.toString()) as {
      first: Record<string, TournamentView>;
      steps: { deltas: Record<string, TournamentDelta>; views: Record<string, TournamentView> }[];
    };
    expect(fx.steps.length).toBeGreaterThan(10);
    for (const [viewer, first] of Object.entries(fx.first)) {
      let v: TournamentView | null = first;
      for (const [i, step] of fx.steps.entries()) {
        v = applyDelta(v as TournamentView, step.deltas[viewer]);
        expect(v, `${viewer} step ${i}`).toEqual(step.views[viewer]);
      }
    }
  });

  it("are applied by the reducer only on the view they follow from", () => {
    let s = signedIn();
    s = reduce(s, { t: "tournament", tournament: view({ tseq: 5 }) }, 0);
    const row = { id: "pD", team: null, order: 4, status: "active", checked_in: false, table: null };
    s = reduce(s, { t: "tournament_delta", tournament: "t1a2b3c4d", from: 5, tseq: 6, players: [row], names: { pD: "Di" } }, 0);
    expect(s.tviews.t1a2b3c4d.players.map((p) => p.id)).toEqual(["pA", "pB", "pC", "pD"]);
    expect(s.tviews.t1a2b3c4d.tseq).toBe(6);
    expect(s.names.pD).toBe("Di");
    const kept = s.tviews.t1a2b3c4d;
    s = reduce(s, { t: "tournament_delta", tournament: "t1a2b3c4d", from: 9, tseq: 10, unregistered: ["pA"] }, 0);
    expect(s.tviews.t1a2b3c4d).toBe(kept); // a gap: left as it is (the app asks for a whole view)
  });
});
