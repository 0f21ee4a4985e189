import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Hint, HintWait, applyEvent, applyGameMessage, emptyView } from "../src/game";
import { hintFor, readyDiscards, visibleCounts } from "../src/hint";
import { parseTiles, tileName } from "../src/tiles";

const TOOL = fileURLToPath(new URL("../tools/fixture.py", import.meta.url));

/** The server's hint (game/hints.py, 国标馆 rules, East seat and round) for the tiles of a hand. */
function serverHint(tiles: string): Hint {
  return JSON.parse(execFileSync(process.env.PYTHON ?? "python3", [TOOL, "hint", tiles]).toString());
}

describe("the hint on a table", () => {
  const table = (hint?: Hint) => {
    let v = emptyView(0, 4);
    v = applyEvent(v, { t: "start", dealer: 0, prevalent: 0, wall: 144, seq: 0 });
    v = applyEvent(v, { t: "deal", seat: 0, count: 14, tiles: parseTiles("123m456m789m11s23sN") });
    for (const s of [1, 2, 3]) v = applyEvent(v, { t: "deal", seat: s, count: 13 });
    v = applyEvent(v, { t: "turn", seat: 0, seq: 0 });
    return hint === undefined ? v : applyGameMessage(v, { events: [], legal: [], to_act: false, hint });
  };

  it("on the own turn: the server's waits after a discard, with the unseen copies", () => {
    const v = table(serverHint("123m456m789m11s23sN"));
    expect(hintFor(v, parseTiles("N")[0]).map((w) => [w.tile, w.unseen])).toEqual([[9, 2], [12, 4]]);
    expect([...readyDiscards(v)].map(tileName).sort()).toEqual(["1s", "N"]);
  });

  it("after the discard: the waits, less what the table shows", () => {
    let v = applyGameMessage(table(), {
      events: [{ t: "discard", seat: 0, tile: 30, ready: false }], legal: [], to_act: false, hint: serverHint("123m456m789m11s23s"),
    });
    v = applyEvent(v, { t: "draw", seat: 1, source: "wall" });
    v = applyEvent(v, { t: "discard", seat: 1, tile: 12, ready: false }); // a 4s in a pond
    expect(hintFor(v).map((w) => [w.tile, w.unseen])).toEqual([[9, 2], [12, 3]]);
    expect(visibleCounts(v)[30]).toBe(1);
  });

  it("shows the server's waits and only them, whatever the tiles seem to make", () => {
    // A wait the client could not find from the shape (1m does not complete these tiles), and a ready
    // discard it would not mark: the hint shown is the server's, exactly.
    const wait: HintWait = {
      tile: 0, fans: [[48, "缺一门", "One Voided Suit", 1, 1]], total: 9, total_without_flowers: 8, meets_min: true,
    };
    const v = table({ discards: { "27": [wait] } });
    expect(hintFor(v, 27)).toEqual([{ tile: 0, unseen: 3, fans: wait.fans, total: 9, meetsMin: true }]);
    expect([...readyDiscards(v)]).toEqual([27]);
    // The hand is ready after N and 1s, but the server said nothing of them: nothing is shown.
    expect(hintFor(v, parseTiles("N")[0])).toEqual([]);
    // No hint from the server (the switch off): no waits, no marks.
    expect(hintFor(table(), parseTiles("N")[0])).toEqual([]);
    expect(readyDiscards(table()).size).toBe(0);
  });

  it("shows the server's fans for each wait and whether it reaches the minimum", () => {
    // What game/hints.py sends for this hand (web_client/tools/fixture.py runs it).
    let v = table(serverHint("123m456m789m11s23sN"));
    const afterN = hintFor(v, parseTiles("N")[0]);
    expect(afterN.map((w) => [w.tile, w.total, w.meetsMin])).toEqual([[9, 22, true], [12, 21, true]]);
    expect(afterN[0].fans.find((f) => f[0] === 28)).toEqual([28, "清龙", "Pure Straight", 16, 1]);
    expect(hintFor(v, parseTiles("1s")[0]).map((w) => [w.tile, w.meetsMin])).toEqual([[30, true]]);
    // After the discard the room sends the waits; a message without a hint keeps the last one.
    const h13 = serverHint("123m456m789m11s23s");
    v = applyGameMessage(v, { events: [{ t: "discard", seat: 0, tile: 30, ready: false }], legal: [], to_act: false, hint: h13 });
    v = applyGameMessage(v, { events: [{ t: "draw", seat: 1, source: "wall" }], legal: [], to_act: false });
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
    v = applyGameMessage(v, { events: [], legal: [], to_act: false, hint: serverHint("234m234p678s55m67s") });
    const five = hintFor(v).find((w) => tileName(w.tile) === "5s")!;
    expect([five.total, five.meetsMin, five.selfTotal, five.selfMeetsMin]).toEqual([7, false, 9, true]);
  });

  it("a spectator gets no hint", () => {
    expect(hintFor(emptyView(null))).toEqual([]);
  });
});
