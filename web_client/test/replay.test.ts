import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { replayEvents, replaySteps } from "../src/replay";

const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

/** A finished match as GET /api/matches/<id> serves it, with each hand's events from the server's
 * replay (game.match.replay_hands), and ``finals``: game.match.view of a spectator after each hand. */
function replayFile(seed: number, hands: number): any {
  const text = execFileSync(process.env.PYTHON ?? "python3", [TOOL, "replay", String(seed), String(hands)], {
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
  return JSON.parse(text);
}

const sorted = (tiles: number[]) => [...tiles].sort((a, b) => a - b);

describe("stepping through a finished match from the server's events", () => {
  for (const seed of [7, 17, 29, 36]) { // 36: a hand ends in an exhaustive draw
    it(`shows every hand of seeded match ${seed} as the game saw it`, () => {
      const data = replayFile(seed, 2);
      const events = replayEvents(data)!;
      expect(events.map((e) => e.hand)).toEqual(data.hands.flatMap((h: any) => h.events.map(() => h.hand)));
      const steps = replaySteps(events, data.rules.hands);
      expect(steps).toHaveLength(2);
      steps.forEach((hand, i) => {
        // Every seat's tiles are open throughout (the seed is public once the match is over).
        for (const v of hand) expect(v.players.every((p) => Array.isArray(p.hand) && p.hand.length === p.tiles)).toBe(true);
        const last = hand[hand.length - 1];
        const want = data.finals[i];
        expect(last.phase).toBe("over");
        expect(last.wall).toBe(want.wall);
        last.players.forEach((p, seat) => {
          const w = want.players[seat];
          expect({ melds: p.melds, flowers: p.flowers, discards: p.discards, tiles: p.tiles })
            .toEqual({ melds: w.melds, flowers: w.flowers, discards: w.discards, tiles: w.tiles });
          expect(p.hand).toEqual(sorted(want.hands[seat])); // everybody's hand at the end
        });
        expect(last.result!.payments).toEqual(want.result.payments);
        expect(last.result!.win?.fans ?? null).toEqual(want.result.win?.fans ?? null);
        expect(last.match.scores).toEqual(want.match.scores);
      });
      expect(steps[1][steps[1].length - 1].match.scores).toEqual(data.scores);
    });
  }

  it("reads nothing from a file whose hands come without events (the server could not replay it)", () => {
    const data = replayFile(7, 1);
    expect(replayEvents(data)).not.toBeNull();
    delete data.hands[0].events;
    expect(replayEvents(data)).toBeNull();
  });
});
