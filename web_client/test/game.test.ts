import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  GameView, applyEvent, applyGameMessage, emptyView, fromSnapshot, handLayout, hasClaim, meldTilesFromHand, options,
  relative,
} from "../src/game";

const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

interface Fixture {
  hands: number;
  viewers: string[];
  steps: { events: Record<string, any[]>; views: Record<string, any> }[];
}

/** The real game (game/, pure Python) plays a seeded match and says what each viewer should see. */
function realMatch(seed: number, hands: number): Fixture {
  const out = execFileSync(process.env.PYTHON ?? "python3", [TOOL, String(seed), String(hands)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString());
}

function digest(v: GameView, viewer: number | null) {
  const d: any = {
    seq: v.seq, phase: v.phase, dealer: v.dealer, prevalent: v.prevalent, turn: v.turn, wall: v.wall, seat: v.seat,
    players: v.players.map((p) => ({
      seat: p.seat, wind: p.wind, melds: p.melds, flowers: p.flowers, discards: p.discards, tiles: p.tiles,
      declared: p.declared, blocked: p.blocked,
    })),
    match: { hand: v.match.hand, round: v.match.round, seats: v.match.seats, scores: v.match.scores, phase: v.match.phase },
  };
  if (viewer !== null) d.hand = v.hand;
  return d;
}

function expected(view: any) {
  const d = { ...view };
  delete d.result;
  return d;
}

describe("the reducer against the real game", () => {
  // Seeds chosen for variety: wins on discards and self-drawn, melded, concealed and added kongs;
  // 36 ends a hand in an exhaustive draw.
  for (const seed of [3, 7, 13, 17, 29, 36]) {
    it(`folds the projected events of seeded match ${seed} into the game's own views`, () => {
      const fx = realMatch(seed, 2);
      for (const key of fx.viewers) {
        const viewer = key === "None" ? null : Number(key);
        let v = emptyView(viewer, fx.hands);
        fx.steps.forEach((step, i) => {
          for (const e of step.events[key]) v = applyEvent(v, e);
          const want = step.views[key];
          expect(digest(v, viewer), `viewer ${key}, step ${i}`).toEqual(expected(want));
          if (want.result) {
            expect(v.result!.payments).toEqual(want.result.payments);
            expect(v.result!.penalties).toEqual(want.result.penalties);
            if (want.result.win) expect(v.result!.win).toMatchObject(want.result.win);
            else expect(v.result!.win).toBeNull();
            // After an exhaustive draw every seat's tiles, for players and spectators alike.
            expect(v.result!.hands).toEqual(want.result.hands);
            if (want.result.hands) {
              v.players.forEach((p, seat) => expect(p.hand).toEqual([...want.result.hands[seat]].sort((a, b) => a - b)));
            }
          }
        });
        expect(v.match.phase).toBe("finished");
      }
    });
  }
});

const DISCARD_VIEW = (): GameView => {
  let v = emptyView(0, 4);
  v = applyEvent(v, { t: "hand_start", hand: 0, round: 0, seats: [0, 1, 2, 3], scores: [0, 0, 0, 0], seq: 0 });
  v = applyEvent(v, { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0 });
  v = applyEvent(v, { t: "deal", seat: 0, count: 14, tiles: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 11, 30] });
  for (const s of [1, 2, 3]) v = applyEvent(v, { t: "deal", seat: s, count: 13 });
  return applyEvent(v, { t: "turn", seat: 0, seq: 0 });
};

describe("events", () => {
  it("deals, counts the wall and keeps the own hand sorted", () => {
    const v = DISCARD_VIEW();
    expect(v.wall).toBe(91);
    expect(v.hand).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 11, 30]);
    expect(v.players.map((p) => p.tiles)).toEqual([14, 13, 13, 13]);
    expect(v.players.map((p) => p.wind)).toEqual([0, 1, 2, 3]);
  });

  it("a discard goes to the pond, is the latest, and a claim marks it taken", () => {
    let v = applyEvent(DISCARD_VIEW(), { t: "discard", seat: 0, tile: 30, ready: false });
    expect(v.players[0].discards).toEqual([[30, false]]);
    expect(v.last).toEqual({ seat: 0, tile: 30 });
    expect(v.hand).not.toContain(30);
    v = applyEvent(v, { t: "claim_window", kind: "discard", tile: 30, seat: 0, seq: 1 });
    expect(v.phase).toBe("claim");
    expect(v.match.seq).toBe(1);
    v = applyEvent(v, {
      t: "claim", seat: 1, kind: "pung", tile: 30, from: 0,
      meld: { kind: "pung", tile: 30, concealed: false, claimed: 30, source: 0 },
    });
    expect(v.players[0].discards).toEqual([[30, true]]);
    expect(v.players[1].melds).toHaveLength(1);
    expect(v.players[1].tiles).toBe(11);
    expect(v.turn).toBe(1);
    expect(v.last).toBeNull();
  });

  it("another seat's draw is hidden, the own draw is the drawn tile set apart", () => {
    let v = applyEvent(DISCARD_VIEW(), { t: "discard", seat: 0, tile: 30, ready: false });
    v = applyEvent(v, { t: "draw", seat: 1, source: "wall" });
    expect(v.players[1].tiles).toBe(14);
    expect(v.drawn).toBeNull();
    v = applyEvent(v, { t: "discard", seat: 1, tile: 20, ready: false });
    v = applyEvent(v, { t: "draw", seat: 2, source: "wall" });
    v = applyEvent(v, { t: "discard", seat: 2, tile: 21, ready: false });
    v = applyEvent(v, { t: "draw", seat: 3, source: "wall" });
    v = applyEvent(v, { t: "discard", seat: 3, tile: 22, ready: false });
    v = applyEvent(v, { t: "draw", seat: 0, source: "wall", tile: 12 });
    expect(v.drawn).toBe(12);
    expect(handLayout(v)).toEqual({ tiles: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 11], drawn: 12 });
    expect(v.wall).toBe(87);
  });

  it("flowers: from the deal they leave the hand, from the wall they cost a wall tile", () => {
    let v = emptyView(0, 4);
    v = applyEvent(v, { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0 });
    v = applyEvent(v, { t: "deal", seat: 0, count: 14, tiles: [34, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13] });
    v = applyEvent(v, { t: "flower", seat: 0, tile: 34, source: "deal" });
    v = applyEvent(v, { t: "draw", seat: 0, source: "tail", tile: 14 });
    expect(v.hand).not.toContain(34);
    expect(v.players[0].flowers).toEqual([34]);
    expect(v.players[0].tiles).toBe(14);
    expect(v.wall).toBe(90);
    v = applyEvent(v, { t: "flower", seat: 1, tile: 35, source: "wall" });
    expect(v.wall).toBe(89);
    expect(v.players[1].tiles).toBe(0);
  });

  it("an added kong completes when its seat draws the replacement", () => {
    let v = DISCARD_VIEW();
    v = { ...v, players: v.players.map((p) => (p.seat === 0 ? { ...p, melds: [{ kind: "pung", tile: 5, concealed: false, claimed: 5, source: 3 }] } : p)) };
    v = applyEvent(v, { t: "added_kong", seat: 0, tile: 5 });
    expect(v.players[0].melds[0].kind).toBe("pung");
    v = applyEvent(v, { t: "claim_window", kind: "rob", tile: 5, seat: 0, seq: 3 });
    v = applyEvent(v, { t: "draw", seat: 0, source: "tail", tile: 33 });
    expect(v.players[0].melds[0]).toMatchObject({ kind: "kong", added: true, tile: 5 });
  });

  it("a concealed kong is face down to others and shown when the hand ends", () => {
    let v = emptyView(1, 4);
    v = applyEvent(v, { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0 });
    v = applyEvent(v, { t: "deal", seat: 0, count: 14 });
    v = applyEvent(v, { t: "concealed_kong", seat: 0 });
    expect(v.players[0].melds).toEqual([{ kind: "kong", concealed: true }]);
    expect(v.players[0].tiles).toBe(10);
    v = applyEvent(v, {
      t: "hand_end", seq: 9, kongs: [[27], [], [], []], payments: [0, 0, 0, 0], penalties: [0, 0, 0, 0], win: null,
    });
    expect(v.players[0].melds).toEqual([{ kind: "kong", concealed: true, tile: 27 }]);
    expect(v.phase).toBe("over");
  });

  it("everybody's tiles are kept when the server shows them at the end", () => {
    let v = DISCARD_VIEW();
    v = applyEvent(v, {
      t: "hand_end", seq: 9, kongs: [[], [], [], []], payments: [0, 0, 0, 0], penalties: [0, 0, 0, 0], win: null,
      hands: [[1, 2], [4, 3], [], [5]],
    });
    expect(v.players[1].hand).toEqual([3, 4]);
    expect(v.players[2].hand).toEqual([]);
  });
});

describe("messages and prompts", () => {
  it("a game message sets the legal actions and the seq they answer", () => {
    const v = applyGameMessage(DISCARD_VIEW(), { events: [], legal: [{ a: "discard", tile: 30 }, { a: "win" }], to_act: true, seq: 4 });
    expect(v.to_act).toBe(true);
    expect(v.match.seq).toBe(4);
    const o = options(v.legal);
    expect(o.discards.has(30)).toBe(true);
    expect(o.win).toBe(true);
    const hint = { waits: [{ tile: 9, fans: [], total: 16, total_without_flowers: 16, meets_min: true }] };
    expect(applyGameMessage(v, { events: [], legal: [], to_act: false, hint }).hint).toEqual(hint);
    expect(applyGameMessage({ ...v, hint }, { events: [], legal: [], to_act: false }).hint).toEqual(hint);
  });

  it("groups a claim prompt's options: each chow, pung, kong, win, pass", () => {
    const o = options([{ a: "chow", low: 4 }, { a: "chow", low: 2 }, { a: "pung" }, { a: "pass" }]);
    expect(o.chows).toEqual([2, 4]);
    expect(o.pung && o.pass && !o.kong && !o.win).toBe(true);
    expect(hasClaim(o)).toBe(true);
    expect(hasClaim(options([{ a: "pass" }]))).toBe(false);
    const r = options([{ a: "discard", tile: 3, ready: true }, { a: "discard", tile: 3 }]);
    expect([...r.readyDiscards]).toEqual([3]);
  });

  it("takes the right tiles from the hand for a meld", () => {
    expect(meldTilesFromHand({ kind: "chow", tile: 3, concealed: false }, 4)).toEqual([3, 5]);
    expect(meldTilesFromHand({ kind: "pung", tile: 7, concealed: false }, 7)).toEqual([7, 7]);
    expect(meldTilesFromHand({ kind: "kong", tile: 7, concealed: false }, 7)).toEqual([7, 7, 7]);
  });

  it("a snapshot keeps the drawn tile apart and finds the latest discard", () => {
    const v = fromSnapshot({
      ...DISCARD_VIEW(), phase: "claim", claim: { kind: "discard", tile: 9, seat: 2 }, hand: [5, 1, 3], drawn: null,
    });
    expect(v.hand).toEqual([1, 3, 5]);
    expect(v.last).toEqual({ seat: 2, tile: 9 });
  });

  it("places seats around the viewer: self, right (next), across, left", () => {
    expect([0, 1, 2, 3].map((s) => relative(s, 2))).toEqual([2, 3, 0, 1]);
    expect(relative(3, null)).toBe(3);
  });
});
