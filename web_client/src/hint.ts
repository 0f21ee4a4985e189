// 听牌提示: which tiles complete a hand (any winning shape, as game/fans/decompose.py `is_complete`),
// how many of each are still unseen from this seat, and which discards leave the hand ready.
// The fans each wait would score, and whether it reaches the room's minimum, are the server's to say
// (the fan engine is there: game/hints.py): the room sends them to the seat as ``hint`` when its tiles
// change; without them (switch off, an older server) the shapes alone are shown.

import type { Fan, GameView, HintWait, Meld } from "./game";
import { NUM_KINDS, Tile, isFlower } from "./tiles";

const TERMINALS_HONORS: Tile[] = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33];

// The six knitted straights: 147 / 258 / 369 spread over the three suits.
const KNITTED: Tile[][] = [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]].map((starts) =>
  starts.flatMap((start, s) => [start, start + 3, start + 6].map((r) => s * 9 + r - 1)).sort((a, b) => a - b),
);

export function counts(tiles: readonly Tile[]): number[] {
  const c = new Array(NUM_KINDS).fill(0);
  for (const t of tiles) if (t < NUM_KINDS) c[t]++;
  return c;
}

/** Whether the counts split into sets (chows within a suit, pungs) and exactly one pair. */
function onePairSplit(c: number[]): boolean {
  const total = c.reduce((a, b) => a + b, 0);
  if (total % 3 !== 2) return false;
  for (let p = 0; p < NUM_KINDS; p++) {
    if (c[p] >= 2) {
      c[p] -= 2;
      const ok = allSets(c);
      c[p] += 2;
      if (ok) return true;
    }
  }
  return false;
}

function allSets(c: number[]): boolean {
  let i = 0;
  while (i < NUM_KINDS && c[i] === 0) i++;
  if (i === NUM_KINDS) return true;
  if (c[i] >= 3) {
    c[i] -= 3;
    const ok = allSets(c);
    c[i] += 3;
    if (ok) return true;
  }
  if (i < 27 && i % 9 <= 6 && c[i + 1] > 0 && c[i + 2] > 0) {
    c[i]--; c[i + 1]--; c[i + 2]--;
    const ok = allSets(c);
    c[i]++; c[i + 1]++; c[i + 2]++;
    if (ok) return true;
  }
  return false;
}

export function isSevenPairs(c: number[]): boolean {
  return c.reduce((a, b) => a + b, 0) === 14 && c.every((n) => n % 2 === 0);
}

export function isThirteenOrphans(c: number[]): boolean {
  return (
    c.reduce((a, b) => a + b, 0) === 14 &&
    TERMINALS_HONORS.every((t) => c[t] > 0) &&
    TERMINALS_HONORS.reduce((a, t) => a + c[t], 0) === 14
  );
}

/** 全不靠: 14 different tiles, 7-9 from one knitted straight, the rest honors. */
export function isHonorsAndKnitted(c: number[]): boolean {
  if (c.reduce((a, b) => a + b, 0) !== 14 || c.some((n) => n > 1)) return false;
  const numbers: Tile[] = [];
  for (let t = 0; t < 27; t++) if (c[t]) numbers.push(t);
  if (numbers.length < 7 || numbers.length > 9) return false;
  return KNITTED.some((k) => numbers.every((t) => k.includes(t)));
}

/** Standing tiles (with the winning tile) and the number of declared sets: a winning shape? */
export function isComplete(c: number[], melds: number): boolean {
  if (c.reduce((a, b) => a + b, 0) !== 14 - 3 * melds) return false;
  if (c.some((n) => n > 4)) return false;
  if (onePairSplit(c.slice())) return true;
  if (melds === 0 && (isSevenPairs(c) || isThirteenOrphans(c) || isHonorsAndKnitted(c))) return true;
  if (melds <= 1) {
    const k = KNITTED.find((knit) => knit.every((t) => c[t] > 0));
    if (k) {
      const rest = c.slice();
      for (const t of k) rest[t]--;
      return onePairSplit(rest);
    }
  }
  return false;
}

function meldTiles(m: Meld): Tile[] {
  if (m.tile === undefined) return [];
  if (m.kind === "chow") return [m.tile, m.tile + 1, m.tile + 2];
  return Array(m.kind === "kong" ? 4 : 3).fill(m.tile);
}

/** The waits of standing tiles (3n+1 of them) with ``melds`` declared: tiles that complete the hand,
 * leaving out a tile the hand already uses four times (there is no fifth to win on). */
export function waits(standing: readonly Tile[], melds: readonly Meld[]): Tile[] {
  const c = counts(standing);
  const used = c.slice();
  for (const m of melds) for (const t of meldTiles(m)) used[t]++;
  const out: Tile[] = [];
  for (let t = 0; t < NUM_KINDS; t++) {
    if (used[t] >= 4) continue;
    c[t]++;
    if (isComplete(c, melds.length)) out.push(t);
    c[t]--;
  }
  return out;
}

/** Copies of each kind this seat can see: own hand, every meld shown, every pond tile not claimed
 * (a claimed one is in a meld), and the claim window's tile. */
export function visibleCounts(v: GameView): number[] {
  const c = new Array(NUM_KINDS).fill(0);
  for (const t of v.hand ?? []) if (!isFlower(t)) c[t]++;
  for (const p of v.players) {
    for (const m of p.melds) for (const t of meldTiles(m)) c[t]++;
    for (const [t, claimed] of p.discards) if (!claimed) c[t]++;
    if (p.hand && p.seat !== v.seat) for (const t of p.hand) if (!isFlower(t)) c[t]++;
  }
  return c;
}

export interface WaitInfo {
  tile: Tile;
  unseen: number;
  fans?: Fan[]; // from the server, when it sends them
  total?: number; // the score it would make, flowers included
  meetsMin?: boolean; // whether it reaches the room's minimum (flowers not counted)
  selfTotal?: number; // the same wait self-drawn
  selfMeetsMin?: boolean;
}

/** The server's waits for the hand now (``discard`` null) or after discarding ``discard``. */
function serverWaits(v: GameView, discard: Tile | null): Map<Tile, HintWait> | null {
  const h = v.hint;
  if (!h) return null;
  let list: HintWait[] | undefined;
  if (discard === null) list = h.waits;
  else if (h.discards) list = h.discards[String(discard)] ?? [];
  if (!Array.isArray(list)) return null;
  const m = new Map<Tile, HintWait>();
  for (const w of list) if (w && typeof w.tile === "number") m.set(w.tile, w);
  return m;
}

/** The viewer's waits now (13 standing tiles), or after discarding ``discard`` (14 standing). */
export function hintFor(v: GameView, discard: Tile | null = null): WaitInfo[] {
  if (v.seat === null || !v.hand) return [];
  const me = v.players[v.seat];
  let standing = v.hand.filter((t) => !isFlower(t));
  if (discard !== null) {
    const i = standing.indexOf(discard);
    if (i < 0) return [];
    standing = standing.slice(0, i).concat(standing.slice(i + 1));
  }
  if (standing.length % 3 !== 1) return [];
  // A tile about to be discarded stays seen (it moves from the hand to the pond).
  const seen = visibleCounts(v);
  const server = serverWaits(v, discard);
  return waits(standing, me.melds).map((tile) => {
    const info: WaitInfo = { tile, unseen: Math.max(0, 4 - seen[tile]) };
    const s = server?.get(tile);
    if (s) {
      info.fans = s.fans;
      info.total = s.total;
      info.meetsMin = s.meets_min;
      if (s.self_drawn) {
        info.selfTotal = s.self_drawn.total;
        info.selfMeetsMin = s.self_drawn.meets_min;
      }
    }
    return info;
  });
}

/** The discards that leave the viewer's hand ready (听), for marking tiles in the hand. */
export function readyDiscards(v: GameView): Set<Tile> {
  const out = new Set<Tile>();
  if (v.seat === null || !v.hand) return out;
  const standing = v.hand.filter((t) => !isFlower(t));
  if (standing.length % 3 !== 2) return out;
  for (const t of new Set(standing)) if (hintFor(v, t).length) out.add(t);
  return out;
}
