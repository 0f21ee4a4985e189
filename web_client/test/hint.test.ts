import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Hint, applyEvent, applyGameMessage, emptyView } from "../src/game";
import { counts, hintFor, isComplete, readyDiscards, visibleCounts, waits } from "../src/hint";
import { parseTiles, tileName } from "../src/tiles";

const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

/** The server's hint (game/hints.py, 国标馆 rules, East seat and round) for the tiles of a hand. */
function serverHint(tiles: string): Hint {
  return JSON.parse(execFileSync(process.env.PYTHON ?? "python3", [TOOL, "hint", tiles]).toString());
}

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

  it("shows the server's fans for each wait and whether it reaches the minimum", () => {
    // What game/hints.py sends for this hand (web_client/tools/fixture.py runs it).
    const h14 = serverHint("123m456m789m11s23sN");
    let v = applyGameMessage(table(), { events: [], legal: [], hint: h14 });
    const afterN = hintFor(v, parseTiles("N")[0]);
    expect(afterN.map((w) => [w.tile, w.total, w.meetsMin])).toEqual([[9, 22, true], [12, 21, true]]);
    expect(afterN[0].fans!.find((f) => f[0] === 28)).toEqual([28, "清龙", "Pure Straight", 16, 1]);
    expect(hintFor(v, parseTiles("1s")[0]).map((w) => [w.tile, w.meetsMin])).toEqual([[30, true]]);
    // After the discard the room sends the waits; a message without a hint keeps the last one.
    const h13 = serverHint("123m456m789m11s23s");
    v = applyGameMessage(v, { events: [{ t: "discard", seat: 0, tile: 30, ready: false }], legal: [], hint: h13 });
    v = applyGameMessage(v, { events: [{ t: "draw", seat: 1, source: "wall" }], legal: [] });
    expect(hintFor(v).map((w) => [w.tile, w.unseen, w.total])).toEqual([[9, 2, 22], [12, 4, 21]]);
    // Below the minimum: said so.
    const low = serverHint("234m567p678s345s5m");
    expect(low.waits!.map((w) => [w.tile, w.total, w.meets_min])).toEqual([[1, 8, true], [4, 7, false]]);
  });

  it("says when a wait short of the minimum on a discard reaches it self-drawn", () => {
    // 门前清 平和 断幺 喜相逢 = 7 on a discard; 不求人 instead of 门前清 and 自摸: 9 (game/hints.py).
    let v = emptyView(0, 4);
    v = applyEvent(v, { t: "start", dealer: 1, prevalent: 0, wall: 144, seq: 0 });
    v = applyEvent(v, { t: "deal", seat: 0, count: 13, tiles: parseTiles("234m234p678s55m67s") });
    for (const s of [1, 2, 3]) v = applyEvent(v, { t: "deal", seat: s, count: s === 1 ? 14 : 13 });
    v = applyGameMessage(v, { events: [], legal: [], hint: serverHint("234m234p678s55m67s") });
    const five = hintFor(v).find((w) => tileName(w.tile) === "5s")!;
    expect([five.total, five.meetsMin, five.selfTotal, five.selfMeetsMin]).toEqual([7, false, 9, true]);
  });

  it("a spectator gets no hint", () => {
    expect(hintFor(emptyView(null))).toEqual([]);
  });
});
