// Replays: a finished match's events folded into views, one view per step, for stepping through.
// The server's replay file (GET /api/matches/<id>) carries, for each hand, the events its replay shows
// (game.match.replay_hands: every seat's tiles, as the seed is public once the match is over, and every
// hand at the end), computed by replaying the log on the server.

import type { MatchFile } from "./wire.gen";
import { GameEvent, GameView, applyEvent, emptyView } from "./game";

const STEP_AFTER = new Set(["draw", "discard", "claim", "concealed_kong", "added_kong", "hand_end", "foul"]);

/** Views after each step of each hand: steps[hand][i]. */
export function replaySteps(events: GameEvent[], hands: number): GameView[][] {
  const out: GameView[][] = [];
  let v = emptyView(null, hands);
  let dealt = false;
  for (const e of events) {
    if (e.t === "hand_start") {
      out.push([]);
      dealt = false;
    }
    v = applyEvent(v, e);
    if (!out.length) out.push([]);
    const cur = out[out.length - 1];
    if (e.t === "turn" && !dealt) {
      dealt = true;
      cur.push(v);
    } else if (dealt && STEP_AFTER.has(e.t)) {
      cur.push(v);
    } else if (cur.length && (e.t === "scores" || e.t === "match_end")) {
      cur[cur.length - 1] = v; // the hand's last step shows the new totals
    }
  }
  return out.filter((h) => h.length > 0);
}

/** The events of a replay file in order (each hand's ``events``), or null when the server could not
 * replay the match (its hands come without events). */
export function replayEvents(data: MatchFile): GameEvent[] | null {
  const out: GameEvent[] = [];
  for (const h of data.hands) {
    if (!h.events) return null;
    out.push(...h.events);
  }
  return out;
}
