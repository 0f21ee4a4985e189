import { describe, expect, it } from "vitest";
import { applyEvent, emptyView } from "../src/game";
import { counts, hintFor, isComplete, readyDiscards, visibleCounts, waits } from "../src/hint";
import { parseTiles, tileName } from "../src/tiles";

const w = (tiles: string, melds: any[] = []) => waits(parseTiles(tiles), melds).map(tileName).join(" ");

describe("waits", () => {
  it("finds the waits of regular hands", () => {
    expect(w("123m456m789m11s23s")).toBe("1s 4s");
    expect(w("1112345678999m")).toBe("1m 2m 3m 4m 5m 6m 7m 8m 9m"); // 九莲宝灯
    expect(w("123m456m789m123sE")).toBe("E");
    expect(w("123m456m789m1s", [{ kind: "pung", tile: 27, concealed: false }])).toBe("1s");
  });

  it("finds seven pairs, thirteen orphans and the knitted forms", () => {
    expect(w("1122m3344s5566pE")).toBe("E");
    expect(w("19m19s19pESWNCFP")).toBe("1m 9m 1s 9s 1p 9p E S W N C F P");
    expect(w("19m19s19pESWNCFF")).toBe("P");
    expect(w("147m258s369pESWN")).toBe("C F P"); // 全不靠 (and 七星不靠 with all seven honors)
    expect(w("147m258s369p123p5p")).toBe("5p"); // 组合龙 + a set + a single: waits on the pair
  });

  it("leaves out a tile the hand already uses four times", () => {
    expect(w("1111m234m567m789s")).toBe("4m 7m"); // not 1m: all four are in the hand
    expect(w("123m456m789m1s", [{ kind: "kong", tile: 9, concealed: false }])).toBe("");
  });

  it("says which shapes are complete", () => {
    expect(isComplete(counts(parseTiles("123m456m789m11s234s")), 0)).toBe(true);
    expect(isComplete(counts(parseTiles("123m456m789m11s235s")), 0)).toBe(false);
    expect(isComplete(counts(parseTiles("11s234s")), 3)).toBe(true);
  });
});

describe("the hint on a table", () => {
  const table = () => {
    let v = emptyView(0, 4);
    v = applyEvent(v, { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0 });
    v = applyEvent(v, { t: "deal", seat: 0, count: 14, tiles: parseTiles("123m456m789m11s23sN") });
    for (const s of [1, 2, 3]) v = applyEvent(v, { t: "deal", seat: s, count: 13 });
    v = applyEvent(v, { t: "turn", seat: 0, seq: 0 });
    return v;
  };

  it("on the own turn: the waits after a discard, with the unseen copies", () => {
    const v = table();
    expect(hintFor(v, parseTiles("N")[0])).toEqual([{ tile: 9, unseen: 2 }, { tile: 12, unseen: 4 }]);
    expect([...readyDiscards(v)].map(tileName)).toEqual(["1s", "N"]);
  });

  it("after the discard: the waits, less what the table shows", () => {
    let v = applyEvent(table(), { t: "discard", seat: 0, tile: 30, ready: false });
    v = applyEvent(v, { t: "draw", seat: 1, source: "wall" });
    v = applyEvent(v, { t: "discard", seat: 1, tile: 12, ready: false }); // a 4s in a pond
    expect(hintFor(v)).toEqual([{ tile: 9, unseen: 2 }, { tile: 12, unseen: 3 }]);
    expect(visibleCounts(v)[30]).toBe(1);
  });

  it("shows the server's fans for each wait when the view has them", () => {
    const v: any = applyEvent(table(), { t: "discard", seat: 0, tile: 30, ready: false });
    v.hint = { waits: [{ tile: 9, fans: [[28, "一气化三清", "Pure Straight", 16, 1]], total: 16 }, { tile: 12, total: null }] };
    const h = hintFor(v);
    expect(h[0].total).toBe(16);
    expect(h[0].fans![0][2]).toBe("Pure Straight");
    expect(h[1].total).toBeNull();
  });

  it("a spectator gets no hint", () => {
    expect(hintFor(emptyView(null))).toEqual([]);
  });
});
