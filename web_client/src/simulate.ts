// Rebuild a finished match's events from its replay file (GET /api/matches/<id>): the seed, the rules
// and the (player, action) log, with each hand's record for the results. Everything is public once a
// match is over, so the events are the game's own, unprojected (every seat's tiles).
//
// The walls come from the same generator as game/wall.py (splitmix64 + Fisher-Yates, BigInt here);
// the deal, 补花 and draws follow game/state.py; claim windows hold exactly the answers the room passed
// to the game (rooms/room.py `_close`): the first 和 counterclockwise wins, then 碰/杠, then 吃.
// The fans and payments of a hand are taken from its record (the fan engine is the server's).
// tests: test/simulate.test.ts checks the events against game/ itself on seeded matches.

import type { GameEvent, Meld } from "./game";
import type { HandRecord } from "./state";

const MASK = (1n << 64n) - 1n;
const DEAL_SIZE = 53;

// decisions.md item 8: SEAT_SCHEME[player][round] = the seat of that player.
export const SEAT_SCHEME = [[0, 1, 3, 2], [1, 0, 2, 3], [2, 3, 0, 1], [3, 2, 1, 0]];

export class SplitMix64 {
  constructor(public state: bigint) {
    this.state = state & MASK;
  }

  next(): bigint {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }

  /** A uniform int in [0, n) without modulo bias (game/wall.py `below`). */
  below(n: number): number {
    const N = BigInt(n);
    const limit = (1n << 64n) - ((1n << 64n) % N);
    for (;;) {
      const x = this.next();
      if (x < limit) return Number(x % N);
    }
  }
}

export function fullSet(flowers: boolean): number[] {
  const tiles: number[] = [];
  for (let t = 0; t < 34; t++) tiles.push(t, t, t, t);
  if (flowers) for (let f = 34; f < 42; f++) tiles.push(f);
  return tiles;
}

export function shuffled(tiles: number[], rng: SplitMix64): number[] {
  const out = tiles.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** The seed of a replay file read as text: exact even above 2^53 (JSON numbers are doubles in JS). */
export function seedFromText(text: string): bigint | null {
  const m = /"seed"\s*:\s*"?(\d+)"?/.exec(text);
  return m ? BigInt(m[1]) : null;
}

type Act = { a: string; tile?: number; low?: number; ready?: boolean };

interface Hand {
  wall: number[];
  head: number;
  tail: number;
  concealed: number[][];
  melds: Meld[][];
  dealer: number;
}

const isFlower = (t: number) => t >= 34;
const sortN = (a: number[]) => a.sort((x, y) => x - y);

function remove(tiles: number[], t: number, n = 1): void {
  for (let k = 0; k < n; k++) {
    const i = tiles.indexOf(t);
    if (i < 0) throw new Error(`replay: tile ${t} is not in the hand`);
    tiles.splice(i, 1);
  }
}

export class ReplayError extends Error {}

/** The events of the whole match, as game.match would emit them, in order. */
export function simulate(
  seed: bigint, rules: { hands: number; flowers?: boolean }, actions: [number, Act][], records: HandRecord[],
): GameEvent[] {
  const flowers = rules.flowers !== false;
  const rng = new SplitMix64(seed);
  const events: GameEvent[] = [];
  let scores = [0, 0, 0, 0];
  let seq = 0;
  let i = 0; // the next action
  for (let number = 0; number < rules.hands; number++) {
    const round = Math.floor(number / 4);
    const seats = [0, 0, 0, 0];
    for (let p = 0; p < 4; p++) seats[SEAT_SCHEME[p][round]] = p;
    const seatOf = (p: number) => SEAT_SCHEME[p][round];
    const emit = (e: GameEvent) => events.push({ ...e, hand: number });
    emit({ t: "hand_start", hand: number, round, seats, scores: scores.slice(), seq });
    const wall = shuffled(fullSet(flowers), rng);
    const dealer = number % 4;
    const h: Hand = { wall, head: DEAL_SIZE, tail: wall.length, concealed: [[], [], [], []], melds: [[], [], [], []], dealer };
    emit({ t: "start", dealer, prevalent: round, wall: wall.length, seq });
    for (let k = 0; k < 4; k++) h.concealed[(dealer + k) % 4] = wall.slice(13 * k, 13 * k + 13);
    h.concealed[dealer].push(wall[52]);
    const order = [0, 1, 2, 3].map((k) => (dealer + k) % 4);
    for (const s of order) emit({ t: "deal", seat: s, tiles: sortN(h.concealed[s].slice()), count: h.concealed[s].length });
    while (h.concealed.some((c) => c.some(isFlower))) {
      for (const s of order) {
        for (const f of sortN(h.concealed[s].filter(isFlower))) {
          remove(h.concealed[s], f);
          emit({ t: "flower", seat: s, tile: f, source: "deal" });
          h.tail -= 1;
          const r = wall[h.tail];
          h.concealed[s].push(r);
          emit({ t: "draw", seat: s, tile: r, source: "tail" });
        }
      }
    }
    emit({ t: "turn", seat: dealer, seq });

    const rec = records[number];
    if (!rec) throw new ReplayError(`no record for hand ${number}`);
    let turn = dealer;
    let over = false;

    /** Draw for ``seat`` (a replacement from the tail), with flowers; false when the wall is empty. */
    const draw = (seat: number, fromTail: boolean): boolean => {
      let tail = fromTail;
      for (;;) {
        if (h.tail === h.head) return false;
        let t: number;
        if (tail) t = wall[--h.tail];
        else t = wall[h.head++];
        if (isFlower(t)) {
          emit({ t: "flower", seat, tile: t, source: tail ? "tail" : "wall" });
          if (h.tail === h.head) return false;
          tail = true;
          continue;
        }
        h.concealed[seat].push(t);
        emit({ t: "draw", seat, tile: t, source: tail ? "tail" : "wall" });
        return true;
      }
    };

    const endHand = () => {
      const seatsOfRec = rec.seats ?? seats;
      const bySeat = (perPlayer: number[]) => [0, 1, 2, 3].map((s) => perPlayer[seatsOfRec[s]]);
      let win: any = null;
      if (rec.winner !== null) {
        const w = seatOf(rec.winner);
        const tiles = sortN(h.concealed[w].slice());
        if (rec.tile !== null) remove(tiles, rec.tile);
        win = {
          seat: w, from: rec.discarder === null ? null : seatOf(rec.discarder), tile: rec.tile, robbed: rec.robbed,
          self_drawn: rec.self_drawn, tiles, fans: rec.fans, total: rec.total,
        };
      }
      const kongs = h.melds.map((ms) => ms.filter((m) => m.concealed).map((m) => m.tile!));
      seq += 1;
      emit({
        t: "hand_end", seq, kongs, payments: bySeat(rec.payments), penalties: bySeat(rec.penalties), win,
        hands: h.concealed.map((c) => sortN(c.slice())),
      });
      scores = rec.scores.slice();
      emit({ t: "scores", hand: number, scores: scores.slice(), deltas: rec.deltas.slice() });
      if (number + 1 >= rules.hands) emit({ t: "match_end", scores: scores.slice() });
      over = true;
    };

    /** The window after a discard or an added kong: the answers the room passed to the game (only
     * seats that could claim are in the log). A seat answers once; the next turn action ends it. */
    const windowAnswers = (from: number): [number, Act][] => {
      const out: [number, Act][] = [];
      while (i < actions.length) {
        const [p, a] = actions[i];
        const s = seatOf(p);
        if (s === from || out.some(([x]) => x === s)) break;
        if (a.a === "win") {
          // The hand's last action, a self-drawn win by this seat: its turn after the draw, no answer.
          const last = i + 1 >= actions.length || actions[i + 1][1].a === "continue";
          if (last && rec.self_drawn && rec.winner === p) break;
        } else if (!["pass", "chow", "pung", "kong"].includes(a.a)) {
          break;
        }
        out.push([s, a]);
        i++;
      }
      return out;
    };

    while (!over) {
      if (i >= actions.length) throw new ReplayError(`the log ends inside hand ${number}`);
      const [p, a] = actions[i++];
      const s = seatOf(p);
      if (s !== turn) throw new ReplayError(`hand ${number}: ${a.a} by seat ${s}, but seat ${turn} is to play`);
      seq += 1;
      if (a.a === "win") {
        endHand();
        break;
      }
      if (a.a === "concealed_kong") {
        remove(h.concealed[s], a.tile!, 4);
        h.melds[s].push({ kind: "kong", tile: a.tile!, concealed: true });
        emit({ t: "concealed_kong", seat: s, tile: a.tile });
        if (!draw(s, true)) { endHand(); break; }
        emit({ t: "turn", seat: s, seq });
        continue;
      }
      if (a.a === "added_kong") {
        remove(h.concealed[s], a.tile!);
        emit({ t: "added_kong", seat: s, tile: a.tile });
        const answers = windowAnswers(s);
        if (answers.length) seq += 1;
        const robber = [1, 2, 3].map((k) => (s + k) % 4).find((x) => answers.some(([y, z]) => y === x && z.a === "win"));
        if (robber !== undefined) {
          h.concealed[robber].push(a.tile!);
          endHand();
          break;
        }
        h.melds[s] = h.melds[s].map((m) => (m.kind === "pung" && m.tile === a.tile ? { ...m, kind: "kong", added: true } : m));
        if (!draw(s, true)) { endHand(); break; }
        emit({ t: "turn", seat: s, seq });
        continue;
      }
      if (a.a !== "discard") throw new ReplayError(`hand ${number}: unexpected ${a.a} on a turn`);
      remove(h.concealed[s], a.tile!);
      emit({ t: "discard", seat: s, tile: a.tile, ready: !!a.ready });
      const tile = a.tile!;
      const answers = windowAnswers(s);
      if (answers.length) {
        emit({ t: "claim_window", kind: "discard", tile, seat: s, seq });
        seq += 1;
      }
      const ccw = [1, 2, 3].map((k) => (s + k) % 4);
      const by = (seat: number) => answers.find(([x]) => x === seat)?.[1];
      if (ccw.some((x) => by(x)?.a === "win")) {
        h.concealed[ccw.find((x) => by(x)?.a === "win")!].push(tile);
        endHand();
        break;
      }
      let claimer = ccw.find((x) => by(x)?.a === "pung" || by(x)?.a === "kong");
      if (claimer === undefined && by(ccw[0])?.a === "chow") claimer = ccw[0];
      if (claimer === undefined) {
        turn = (s + 1) % 4;
        if (!draw(turn, false)) { endHand(); break; }
        emit({ t: "turn", seat: turn, seq });
        continue;
      }
      const claim = by(claimer)!;
      const c = h.concealed[claimer];
      let meld: Meld;
      if (claim.a === "chow") {
        const low = claim.low!;
        for (const t of [low, low + 1, low + 2]) if (t !== tile) remove(c, t);
        meld = { kind: "chow", tile: low, concealed: false, claimed: tile, source: s };
      } else if (claim.a === "pung") {
        remove(c, tile, 2);
        meld = { kind: "pung", tile, concealed: false, claimed: tile, source: s };
      } else {
        remove(c, tile, 3);
        meld = { kind: "kong", tile, concealed: false, claimed: tile, source: s };
      }
      h.melds[claimer].push(meld);
      emit({ t: "claim", seat: claimer, kind: meld.kind, tile, from: s, meld });
      turn = claimer;
      if (claim.a === "kong" && !draw(claimer, true)) { endHand(); break; }
      emit({ t: "turn", seat: claimer, seq });
    }
    // Between hands every player continues.
    while (i < actions.length && actions[i][1].a === "continue") {
      emit({ t: "ready", player: actions[i][0] });
      i++;
    }
    seq += 1;
  }
  return events;
}
