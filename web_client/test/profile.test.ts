import { describe, expect, it } from "vitest";
import { parseRoute } from "../src/app";
import { curvePath } from "../src/ui/profile";

describe("profile", () => {
  it("opens a player's profile from #player=ID", () => {
    expect(parseRoute("#player=p0123abcd").player).toBe("p0123abcd");
  });

  it("draws a rating curve inside its box, higher ratings higher up", () => {
    const path = curvePath([[0, 0], [1, 2], [2, -1]], 100, 50, 0).split(" ").map((p) => p.split(",").map(Number));
    expect(path).toHaveLength(3);
    expect(path[0][0]).toBe(0);
    expect(path[2][0]).toBe(100);
    expect(path[1][1]).toBe(0); // the highest point at the top
    expect(path[2][1]).toBe(50); // the lowest at the bottom
    expect(curvePath([], 100, 50)).toBe("");
  });
});
