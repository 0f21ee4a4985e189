// 听牌提示: the server's waits (game/hints.py: which tiles complete the hand, the fans each would score
// and whether it reaches the room's minimum), sent to the seat as ``hint`` when its tiles change, and how
// many of each tile are still unseen from this seat. The client works out no winning shapes itself:
// without the server's hint (the switch off) nothing is shown.

import type { Fan, GameView, HintWait, Meld } from "./game";
import { NUM_KINDS, Tile, isFlower } from "./tiles";

function meldTiles(m: Meld): Tile[] {
  if (m.tile === undefined) return [];
  if (m.kind === "chow") return [m.tile, m.tile + 1, m.tile + 2];
  return Array(m.kind === "kong" ? 4 : 3).fill(m.tile);
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
  fans: Fan[];
  total: number; // the score it would make, flowers included
  meetsMin: boolean; // whether it reaches the room's minimum (flowers not counted)
  selfTotal?: number; // the same wait self-drawn
  selfMeetsMin?: boolean;
}

/** The server's waits for the hand now (``discard`` null) or after discarding ``discard``. */
function serverWaits(v: GameView, discard: Tile | null): HintWait[] {
  const h = v.hint;
  if (!h) return [];
  return (discard === null ? h.waits : h.discards?.[String(discard)]) ?? [];
}

/** The viewer's waits now (13 standing tiles), or after discarding ``discard`` (14 standing): the
 * server's, each with its unseen copies. */
export function hintFor(v: GameView, discard: Tile | null = null): WaitInfo[] {
  if (v.seat === null) return [];
  // A tile about to be discarded stays seen (it moves from the hand to the pond).
  const seen = visibleCounts(v);
  return serverWaits(v, discard).map((s) => ({
    tile: s.tile,
    unseen: Math.max(0, 4 - seen[s.tile]),
    fans: s.fans,
    total: s.total,
    meetsMin: s.meets_min,
    ...(s.self_drawn ? { selfTotal: s.self_drawn.total, selfMeetsMin: s.self_drawn.meets_min } : {}),
  }));
}

/** The discards that leave the viewer's hand ready (听), for marking tiles in the hand: the server's. */
export function readyDiscards(v: GameView): Set<Tile> {
  const out = new Set<Tile>();
  if (v.seat === null) return out;
  for (const [tile, list] of Object.entries(v.hint?.discards ?? {})) if (list.length) out.add(Number(tile));
  return out;
}
