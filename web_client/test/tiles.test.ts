import { describe, expect, it } from "vitest";
import { GLYPHS } from "../src/glyphs";
import {
  faceStylesheet, faceSvg, faceUrl, formatTiles, parseTiles, sortTiles, tileLabel, tileName, without,
} from "../src/tiles";

const ALL = Array.from({ length: 42 }, (_, i) => i);

describe("notation", () => {
  it("names every tile as docs/notation.md does and parses it back", () => {
    expect(ALL.map(tileName).join(" ")).toBe(
      "1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 2s 3s 4s 5s 6s 7s 8s 9s 1p 2p 3p 4p 5p 6p 7p 8p 9p E S W N C F P 1h 2h 3h 4h 5h 6h 7h 8h",
    );
    for (const t of ALL) expect(parseTiles(tileName(t))).toEqual([t]);
    expect(parseTiles("123m55pEE 1h")).toEqual([0, 1, 2, 22, 22, 27, 27, 34]);
    expect(formatTiles(parseTiles("123m55p789sEEC"))).toBe("123m55p789sEEC");
    expect(() => parseTiles("12")).toThrow();
    expect(() => parseTiles("9h")).toThrow();
  });

  it("labels tiles for people in Chinese and English", () => {
    expect(tileLabel(4, "zh")).toBe("五万");
    expect(tileLabel(13, "zh")).toBe("五条");
    expect(tileLabel(22, "zh")).toBe("五饼");
    expect(tileLabel(31, "zh")).toBe("红中");
    expect(tileLabel(34, "zh")).toBe("春");
    expect(tileLabel(22, "en")).toBe("5 Dot");
    expect(tileLabel(33, "en")).toBe("White Dragon");
  });

  it("sorts hands and removes single copies", () => {
    expect(sortTiles([30, 1, 18, 9])).toEqual([1, 9, 18, 30]);
    expect(without([1, 1, 2, 3], 1, 3)).toEqual([1, 2]);
  });
});

function count(svg: string, needle: string): number {
  return svg.split(needle).length - 1;
}

describe("tile faces", () => {
  it("draws a distinct, well-formed SVG for each of the 42 tiles", () => {
    const faces = ALL.map(faceSvg);
    expect(new Set(faces).size).toBe(42);
    for (const f of faces) {
      expect(f.startsWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 80">')).toBe(true);
      expect(f.endsWith("</svg>")).toBe(true);
      expect(f).not.toMatch(/NaN|undefined|<text/); // paths only: no font needed on the device
      // Every element is closed: <x .../> or <svg>...</svg>.
      expect(count(f, "<") - count(f, "</") * 2 - count(f, "/>")).toBe(0);
    }
  });

  it("shows n dots on the n of dots and n sticks on the n of bamboo", () => {
    for (let n = 2; n <= 9; n++) {
      // A dot is three concentric circles.
      expect(count(faceSvg(18 + n - 1), "<circle") / 3).toBe(n);
      // A stick is a rod, a highlight and a node band.
      expect(count(faceSvg(9 + n - 1), "<rect") / 3).toBe(n);
    }
    expect(count(faceSvg(18), "<circle")).toBe(5); // the one of dots: one big ringed dot
  });

  it("prints the numeral and 萬 on characters, the character on honors, a frame on 白", () => {
    for (let n = 1; n <= 9; n++) {
      const f = faceSvg(n - 1);
      expect(f).toContain(GLYPHS["一二三四五六七八九"[n - 1]].d);
      expect(f).toContain(GLYPHS["萬"].d);
      expect(f).toContain(GLYPHS[String(n)].d); // the small index
    }
    ["東", "南", "西", "北", "中", "發"].forEach((ch, i) => expect(faceSvg(27 + i)).toContain(GLYPHS[ch].d));
    expect(faceSvg(31)).toContain("#c62828"); // 中 is red
    expect(faceSvg(32)).toContain("#17803d"); // 發 is green
    expect(faceSvg(33)).not.toContain("<path");
    expect(count(faceSvg(33), "<rect")).toBe(2);
    expect(faceSvg(34)).toContain(GLYPHS["春"].d);
  });

  it("serves faces as data URLs in one stylesheet", () => {
    expect(faceUrl(5).startsWith("data:image/svg+xml,%3Csvg")).toBe(true);
    const css = faceStylesheet();
    expect(css.split("\n")).toHaveLength(42);
    expect(css).toContain(".f41{background-image:url(\"data:image/svg+xml,");
  });

  it("rejects what is not a tile", () => {
    expect(() => faceSvg(42)).toThrow();
    expect(() => tileName(-1)).toThrow();
  });
});
