import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { replaySteps } from "../src/replay";
import { SplitMix64, fullSet, seedFromText, shuffled, simulate } from "../src/simulate";

const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

function replayFile(seed: string, hands: number): { text: string; data: any } {
  const text = execFileSync(process.env.PYTHON ?? "python3", [TOOL, "replay", seed, String(hands)], {
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
  return { text, data: JSON.parse(text) };
}

/** The fields both sides share: the game's events carry a few the replay cannot know or need. */
function comparable(events: any[]): any[] {
  return events
    .filter((e) => e.t !== "response" && e.t !== "claim_window")
    .map((e) => {
      const c = { ...e };
      delete c.seq;
      delete c.hands;
      if (c.t === "hand_end" && c.win) {
        c.win = { ...c.win };
        delete c.win.kong;
        delete c.win.last_tile;
        delete c.win.fourth_tile;
      }
      return c;
    });
}

describe("the wall generator", () => {
  it("is splitmix64 as in game/wall.py", () => {
    const r = new SplitMix64(0n);
    // splitmix64 from state 0: the well-known first outputs.
    expect(r.next()).toBe(0xe220a8397b1dcdafn);
    expect(r.next()).toBe(0x6e789e6aa1b965f4n);
    expect(shuffled(fullSet(true), new SplitMix64(1n)).slice().sort((a, b) => a - b)).toEqual(fullSet(true));
  });

  it("reads a seed above 2^53 exactly from the file's text", () => {
    expect(seedFromText('{"id":3,"seed":12345678901234567890,"salt":"x"}')).toBe(12345678901234567890n);
    expect(seedFromText('{"seed":"42"}')).toBe(42n);
    expect(seedFromText("{}")).toBeNull();
  });
});

describe("replaying a finished match from its log", () => {
  for (const seed of ["12345678901234567890", "7", "17", "29", "9007199254740993"]) {
    it(`rebuilds every event of seeded match ${seed} from seed, actions and records`, () => {
      const { text, data } = replayFile(seed, 2);
      const events = simulate(seedFromText(text)!, data.rules, data.actions, data.hands);
      expect(comparable(events)).toEqual(comparable(data.events));
      const steps = replaySteps(events, data.rules.hands);
      expect(steps).toHaveLength(2);
      const last = steps[1][steps[1].length - 1];
      expect(last.phase).toBe("over");
      expect(last.match.scores).toEqual(data.scores);
      // Once the match is over every seat's tiles are known to the replay.
      expect(last.players.every((p) => Array.isArray(p.hand))).toBe(true);
    });
  }
});
