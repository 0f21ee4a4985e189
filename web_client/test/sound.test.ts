import { describe, expect, it } from "vitest";
import type { GameEvent } from "../src/game";
import { GameView, emptyView } from "../src/game";
import { Sound, cuesFor } from "../src/sound";

function store(): Storage {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k), clear: () => m.clear(), key: () => null, get length() { return m.size; },
  } as Storage;
}

const ev = (e: Record<string, unknown>) => e as unknown as GameEvent;

describe("table sounds", () => {
  const before: GameView = { ...emptyView(0, 4), seat: 0, turn: 3, phase: "claim", seq: 5 };
  const mine: GameView = { ...before, phase: "turn", turn: 0, seq: 6, to_act: true, legal: [{ a: "discard", tile: 3 }] };

  it("each discard, claim and win sounds, and the start of your turn once", () => {
    const events = [ev({ t: "discard", seat: 3, tile: 5 }), ev({ t: "claim", seat: 0 }), ev({ t: "hand_end", win: null })];
    expect(cuesFor(before, events, mine)).toEqual(["discard", "claim", "turn"]);
    // The same decision again (a clock update, say) does not chime again.
    expect(cuesFor(mine, [], mine)).toEqual([]);
    expect(cuesFor(mine, [ev({ t: "hand_end", win: { seat: 1 } })], { ...mine, phase: "over", to_act: false })).toEqual(["win"]);
  });

  it("starts on for people, off for automated browsers, and remembers the switch", () => {
    expect(new Sound(store(), false).on).toBe(true);
    const s = store();
    const muted = new Sound(s, true);
    expect(muted.on).toBe(false);
    muted.play("discard"); // muted: nothing is made
    expect(muted.played.discard).toBe(0);
    muted.set(true);
    expect(new Sound(s, true).on).toBe(true);
  });
});
