// Tiles: the ids of game/tiles.py, their names and notation, and the faces drawn as SVG.
//
// Ids: 万 1-9 = 0-8, 条 1-9 = 9-17, 饼 1-9 = 18-26, 东南西北 = 27-30, 中发白 = 31-33,
// flowers 春夏秋冬梅兰竹菊 = 34-41 (docs/notation.md).

import { GLYPHS } from "./glyphs";

export type Tile = number;

export const NUM_KINDS = 34;
export const MAN = 0, SOU = 1, PIN = 2, HONOR = 3;
export const EAST = 27, SOUTH = 28, WEST = 29, NORTH = 30;
export const RED = 31, GREEN = 32, WHITE = 33;
export const FLOWER_FIRST = 34, FLOWER_LAST = 41;

export function suit(t: Tile): number {
  return t < 27 ? Math.floor(t / 9) : HONOR;
}

/** 1..9 for number tiles, 0 for honors and flowers. */
export function rank(t: Tile): number {
  return t < 27 ? (t % 9) + 1 : 0;
}

export const isNumber = (t: Tile) => t >= 0 && t < 27;
export const isHonor = (t: Tile) => t >= 27 && t < 34;
export const isFlower = (t: Tile) => t >= 34 && t < 42;
export const isTile = (t: unknown): t is Tile => typeof t === "number" && Number.isInteger(t) && t >= 0 && t < 42;

const SUIT_LETTERS = "msp";
const HONOR_LETTERS = "ESWNCFP";

/** docs/notation.md: 5p, E, 3h. */
export function tileName(t: Tile): string {
  if (!isTile(t)) throw new RangeError(`not a tile: ${t}`);
  if (t < 27) return `${rank(t)}${SUIT_LETTERS[suit(t)]}`;
  if (t < 34) return HONOR_LETTERS[t - 27];
  if (t < 42) return `${t - 33}h`;
  throw new RangeError(`not a tile: ${t}`);
}

/** Parse notation such as "123m55pEE 1h" (the inverse of tileName over a run). */
export function parseTiles(text: string): Tile[] {
  const out: Tile[] = [];
  let digits: number[] = [];
  for (const ch of text) {
    if (ch === " ") {
      if (digits.length) throw new SyntaxError(`digits without a suit in ${JSON.stringify(text)}`);
      continue;
    }
    if (ch >= "0" && ch <= "9") {
      digits.push(Number(ch));
    } else if ("msph".includes(ch)) {
      if (!digits.length) throw new SyntaxError(`suit ${ch} follows no digit in ${JSON.stringify(text)}`);
      for (const r of digits) {
        if (ch === "h") {
          if (r < 1 || r > 8) throw new SyntaxError(`no flower ${r}h`);
          out.push(33 + r);
        } else {
          if (r < 1) throw new SyntaxError("rank 0");
          out.push(SUIT_LETTERS.indexOf(ch) * 9 + r - 1);
        }
      }
      digits = [];
    } else if (HONOR_LETTERS.includes(ch)) {
      if (digits.length) throw new SyntaxError(`digits without a suit in ${JSON.stringify(text)}`);
      out.push(27 + HONOR_LETTERS.indexOf(ch));
    } else {
      throw new SyntaxError(`bad character ${ch} in ${JSON.stringify(text)}`);
    }
  }
  if (digits.length) throw new SyntaxError(`digits without a suit in ${JSON.stringify(text)}`);
  return out;
}

export function formatTiles(tiles: readonly Tile[]): string {
  let out = "";
  let run: number[] = [];
  let runSuit = -1;
  const flush = () => {
    if (run.length) out += run.join("") + SUIT_LETTERS[runSuit];
    run = [];
  };
  for (const t of tiles) {
    if (t < 27) {
      if (suit(t) !== runSuit) flush();
      runSuit = suit(t);
      run.push(rank(t));
    } else {
      flush();
      runSuit = -1;
      out += tileName(t);
    }
  }
  flush();
  return out;
}

const ZH_NUMERALS = "一二三四五六七八九";
const ZH_SUITS = "万条饼";
const ZH_HONORS = ["东", "南", "西", "北", "红中", "发财", "白板"];
const ZH_FLOWERS = "春夏秋冬梅兰竹菊";
const EN_SUITS = ["Character", "Bamboo", "Dot"];
const EN_HONORS = ["East", "South", "West", "North", "Red Dragon", "Green Dragon", "White Dragon"];
const EN_FLOWERS = ["Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo flower", "Chrysanthemum"];

export type Lang = "zh" | "en";

/** A tile's name for people: 五饼 / 5 Dot. */
export function tileLabel(t: Tile, lang: Lang): string {
  if (lang === "zh") {
    if (t < 27) return ZH_NUMERALS[rank(t) - 1] + ZH_SUITS[suit(t)];
    if (t < 34) return ZH_HONORS[t - 27];
    return ZH_FLOWERS[t - 34];
  }
  if (t < 27) return `${rank(t)} ${EN_SUITS[suit(t)]}`;
  if (t < 34) return EN_HONORS[t - 27];
  return EN_FLOWERS[t - 34];
}

/** Own hand order: by id (万 条 饼, winds, dragons). */
export function sortTiles(tiles: readonly Tile[]): Tile[] {
  return [...tiles].sort((a, b) => a - b);
}

/** Remove one copy of each of ``remove`` from ``tiles`` (missing ones are ignored). */
export function without(tiles: readonly Tile[], ...remove: Tile[]): Tile[] {
  const out = [...tiles];
  for (const r of remove) {
    const i = out.indexOf(r);
    if (i >= 0) out.splice(i, 1);
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Faces. Each face is an SVG of 60 x 80 units with a transparent background: the tile's body (ivory,
// rounded, with an edge) is CSS, so highlights and face-down tiles need no other image.

export const FACE_W = 60, FACE_H = 80;
const BLUE = "#1f5fa8", GREEN_C = "#17803d", RED_C = "#c62828", INK = "#15233d", IVORY = "#fbf8ee";

function glyph(ch: string, cx: number, top: number, size: number, fill: string): string {
  const g = GLYPHS[ch];
  if (!g) throw new RangeError(`no glyph for ${ch}`);
  const s = size / 1000;
  const x = cx - (g.w * s) / 2;
  return `<path fill="${fill}" transform="translate(${r2(x)} ${r2(top)}) scale(${s})" d="${g.d}"/>`;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

function dot(x: number, y: number, r: number, color: string): string {
  return (
    `<circle cx="${x}" cy="${y}" r="${r}" fill="${color}"/>` +
    `<circle cx="${x}" cy="${y}" r="${r2(r * 0.64)}" fill="${IVORY}"/>` +
    `<circle cx="${x}" cy="${y}" r="${r2(r * 0.36)}" fill="${color}"/>`
  );
}

// [x, y, radius, color] per dot.
type Dot = [number, number, number, string];
const B = BLUE, G = GREEN_C, R = RED_C;
const DOTS: Record<number, Dot[]> = {
  2: [[30, 23, 11, G], [30, 57, 11, B]],
  3: [[15, 17, 9, B], [30, 40, 9, R], [45, 63, 9, G]],
  4: [[18, 24, 10, B], [42, 24, 10, G], [18, 56, 10, G], [42, 56, 10, B]],
  5: [[16, 17, 9, B], [44, 17, 9, G], [30, 40, 9, R], [16, 63, 9, G], [44, 63, 9, B]],
  6: [[18, 15, 8, G], [42, 15, 8, G], [18, 45, 8, R], [42, 45, 8, R], [18, 65, 8, R], [42, 65, 8, R]],
  7: [[14, 11, 7, G], [30, 19, 7, G], [46, 27, 7, G], [18, 47, 8, R], [42, 47, 8, R], [18, 67, 8, R], [42, 67, 8, R]],
  8: [18, 42].flatMap((x) => [12, 31, 50, 69].map((y): Dot => [x, y, 8, B])),
  9: [16, 40, 64].flatMap((y, row) => [14, 30, 46].map((x): Dot => [x, y, 8, [B, R, G][row]])),
};

function pinFace(n: number): string {
  if (n === 1) {
    return (
      `<circle cx="30" cy="40" r="22" fill="${G}"/><circle cx="30" cy="40" r="18" fill="${IVORY}"/>` +
      `<circle cx="30" cy="40" r="14" fill="${R}"/><circle cx="30" cy="40" r="9" fill="${IVORY}"/>` +
      `<circle cx="30" cy="40" r="5" fill="${B}"/>`
    );
  }
  return DOTS[n].map(([x, y, r, c]) => dot(x, y, r, c)).join("");
}

function stick(x: number, y: number, len: number, color: string, w = 8): string {
  const top = y - len / 2;
  return (
    `<rect x="${r2(x - w / 2)}" y="${r2(top)}" width="${w}" height="${len}" rx="${w / 2}" fill="${color}"/>` +
    `<rect x="${r2(x - 1)}" y="${r2(top + 2)}" width="2" height="${len - 4}" rx="1" fill="${IVORY}" opacity=".55"/>` +
    `<rect x="${r2(x - w / 2 - 0.5)}" y="${r2(y - 1.2)}" width="${w + 1}" height="2.4" rx="1" fill="${color}"/>`
  );
}

// [x, y, length, color] per bamboo stick.
type Stick = [number, number, number, string];
const STICKS: Record<number, Stick[]> = {
  2: [[30, 22, 28, G], [30, 58, 28, B]],
  3: [[30, 22, 28, G], [18, 58, 28, B], [42, 58, 28, B]],
  4: [[18, 22, 28, B], [42, 22, 28, G], [18, 58, 28, G], [42, 58, 28, B]],
  5: [[14, 22, 28, G], [46, 22, 28, B], [30, 40, 28, R], [14, 58, 28, B], [46, 58, 28, G]],
  6: [14, 30, 46].flatMap((x): Stick[] => [[x, 22, 28, G], [x, 58, 28, B]]),
  7: [[30, 13, 20, R] as Stick, ...[14, 30, 46].flatMap((x): Stick[] => [[x, 40, 20, G], [x, 66, 20, G]])],
  8: [11, 23, 37, 49].flatMap((x): Stick[] => [[x, 22, 28, G], [x, 58, 28, G]]),
  9: [14, 30, 46].flatMap((x, col) => [15, 40, 65].map((y): Stick => [x, y, 21, col === 1 ? R : G])),
};

function souFace(n: number): string {
  if (n === 1) {
    // 一条: the bird (a sparrow on a bamboo sprig), drawn in a few shapes.
    return (
      `<path d="M14 66 C22 56 26 50 30 40" stroke="${G}" stroke-width="4" fill="none" stroke-linecap="round"/>` +
      `<path d="M30 44 C18 52 10 48 8 38 C16 42 22 40 26 36Z" fill="${B}"/>` +
      `<path d="M30 44 C20 60 14 62 10 60 C18 54 22 48 26 40Z" fill="${G}"/>` +
      `<ellipse cx="36" cy="36" rx="12" ry="9" fill="${R}"/>` +
      `<path d="M30 34 C36 28 42 30 44 36 C40 34 34 36 30 34Z" fill="${G}"/>` +
      `<circle cx="45" cy="24" r="7" fill="${R}"/>` +
      `<circle cx="47" cy="22.5" r="1.8" fill="${IVORY}"/><circle cx="47.3" cy="22.5" r=".9" fill="${INK}"/>` +
      `<path d="M51.5 23 L57 25 L51.5 27Z" fill="#d89a1c"/>` +
      `<path d="M40 44 L38 52 M44 44 L45 52" stroke="${INK}" stroke-width="1.6" stroke-linecap="round"/>`
    );
  }
  return STICKS[n].map(([x, y, len, c]) => stick(x, y, len, c, n === 8 ? 7 : 8)).join("");
}

function manFace(n: number): string {
  return (
    glyph(ZH_NUMERALS_TRAD[n - 1], 30, 5, 30, INK) + glyph("萬", 30, 38, 36, RED_C) +
    glyph(String(n), 6.5, 2, 12, "#6b7280")
  );
}

const ZH_NUMERALS_TRAD = "一二三四五六七八九";
const HONOR_FACE: [string, string][] = [["東", INK], ["南", INK], ["西", INK], ["北", INK], ["中", RED_C], ["發", GREEN_C]];
const FLOWER_FACE = "春夏秋冬梅蘭竹菊";

function honorFace(t: Tile): string {
  if (t === WHITE) {
    return (
      `<rect x="10" y="12" width="40" height="56" rx="3" fill="none" stroke="${BLUE}" stroke-width="3"/>` +
      `<rect x="15.5" y="17.5" width="29" height="45" rx="1.5" fill="none" stroke="${BLUE}" stroke-width="1.4"/>`
    );
  }
  const [ch, color] = HONOR_FACE[t - 27];
  return glyph(ch, 30, 17, 46, color);
}

function flowerFace(t: Tile): string {
  const i = t - 34;
  const color = i < 4 ? GREEN_C : RED_C;
  return (
    glyph(FLOWER_FACE[i], 30, 22, 38, color) +
    glyph(String((i % 4) + 1), 8, 3, 14, BLUE) +
    `<path d="M22 70 Q30 64 38 70" stroke="${color}" stroke-width="1.6" fill="none"/>`
  );
}

/** The face of a tile: SVG markup of the symbols only (the body is CSS). */
export function faceSvg(t: Tile): string {
  let inner: string;
  if (!isTile(t)) throw new RangeError(`not a tile: ${t}`);
  if (t < 9) inner = manFace(rank(t));
  else if (t < 18) inner = souFace(rank(t));
  else if (t < 27) inner = pinFace(rank(t));
  else if (t < 34) inner = honorFace(t);
  else if (t < 42) inner = flowerFace(t);
  else throw new RangeError(`not a tile: ${t}`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${FACE_W} ${FACE_H}">${inner}</svg>`;
}

/** A data: URL of the face, for CSS backgrounds and <img>. */
export function faceUrl(t: Tile): string {
  return "data:image/svg+xml," + encodeURIComponent(faceSvg(t));
}

/** One stylesheet with a class per face (.f0 ... .f41): installed once, cached by the browser. */
export function faceStylesheet(): string {
  const rules: string[] = [];
  for (let t = 0; t < 42; t++) rules.push(`.f${t}{background-image:url("${faceUrl(t)}")}`);
  return rules.join("\n");
}
