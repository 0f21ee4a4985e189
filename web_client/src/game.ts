// The view state of a table, shaped like the server's view dict (game/views.py `view`, extended by
// game/match.py `view` with "match"), and the reduction of projected events (game/views.py
// EVENT_FIELDS) into it. The server's snapshot is the truth; events move it on between snapshots.
//
// Everything here is pure: `applyEvent(view, event)` returns a new view and never mutates its input.

import { Tile, sortTiles, without } from "./tiles";

export type MeldKind = "chow" | "pung" | "kong";

export interface Meld {
  kind: MeldKind;
  tile?: Tile; // absent for another seat's concealed kong (face down)
  concealed: boolean;
  claimed?: Tile;
  source?: number; // the seat it was claimed from
  added?: boolean;
}

export interface PlayerView {
  seat: number;
  wind: number; // 0..3 = E S W N, (seat - dealer) % 4
  melds: Meld[];
  flowers: Tile[];
  discards: [Tile, boolean][]; // [tile, claimed]
  tiles: number; // concealed tile count
  blocked: boolean;
  declared: boolean; // 报听
  hand?: Tile[]; // known concealed tiles: own seat, replays, and everybody's after a hand (if sent)
}

export type Action =
  | { a: "discard"; tile: Tile; ready?: boolean; seq?: number }
  | { a: "win"; seq?: number }
  | { a: "pass"; seq?: number }
  | { a: "chow"; low: Tile; seq?: number }
  | { a: "pung"; seq?: number }
  | { a: "kong"; seq?: number }
  | { a: "concealed_kong"; tile: Tile; seq?: number }
  | { a: "added_kong"; tile: Tile; seq?: number }
  | { a: "continue"; seq?: number };

/** A fan as the server sends it: [id, Chinese name, English name, points, count, sets]; the id is null
 * for a room's extra fans (258将, 听), sets (in notation, e.g. "[123m]") only in results. */
export type Fan = [number | null, string, string, number, number, string[]?];

export interface WinView {
  seat: number;
  from: number | null;
  tile: Tile;
  robbed: boolean;
  self_drawn: boolean;
  tiles: Tile[]; // the winner's concealed tiles without the winning tile
  fans: Fan[];
  total: number;
}

export interface ResultView {
  payments: number[];
  penalties: number[];
  win: WinView | null;
  hands?: Tile[][]; // every seat's concealed tiles, after an exhaustive draw
}

export interface MatchInfo {
  hand: number;
  hands: number;
  round: number;
  seats: number[]; // the player at each table seat
  scores: number[]; // per player
  phase: "playing" | "between" | "finished";
  ready: boolean[];
  player: number | null;
  seq: number;
  deltas?: number[]; // the last hand's, per player (from the "scores" event)
}

export interface GameView {
  seq: number;
  phase: "turn" | "claim" | "over";
  dealer: number;
  prevalent: number;
  turn: number;
  wall: number;
  seat: number | null; // the viewer's table seat (null: spectator)
  players: PlayerView[];
  fouls: [number, string, number][];
  claim?: { kind: string; tile: Tile; seat: number } | null;
  hand?: Tile[];
  drawn?: Tile | null;
  legal?: Action[];
  to_act?: boolean;
  result?: ResultView;
  match: MatchInfo;
  last?: { seat: number; tile: Tile } | null; // the latest discard (client-side: for the highlight)
  adding?: { seat: number; tile: Tile } | null; // an added kong waiting for its rob window to close
  hint?: Hint | null; // the server's waits and fans for this seat (hint.ts)
}

export type GameEvent = { t: string; [k: string]: any };

/** A wait as the server's hint gives it (game/hints.py). */
export interface HintWait {
  tile: Tile;
  fans: Fan[];
  total: number;
  total_without_flowers: number;
  meets_min: boolean;
  /** The same wait self-drawn (自摸, or 不求人 for a concealed hand). */
  self_drawn?: { total: number; total_without_flowers: number; meets_min: boolean };
}

/** The server's hint: the waits now (13 − 3k tiles), or per discard that leaves the hand ready. */
export interface Hint {
  waits?: HintWait[];
  discards?: Record<string, HintWait[]>;
}

export const DEAL_SIZE = 53; // 13 x 4 + the dealer's 14th (game/wall.py)

function freshPlayers(dealer: number): PlayerView[] {
  return [0, 1, 2, 3].map((seat) => ({
    seat,
    wind: (seat - dealer + 4) % 4,
    melds: [],
    flowers: [],
    discards: [],
    tiles: 0,
    blocked: false,
    declared: false,
  }));
}

/** An empty view before the first events of a match (a client that joins by events only). */
export function emptyView(player: number | null, hands = 16): GameView {
  return {
    seq: 0,
    phase: "turn",
    dealer: 0,
    prevalent: 0,
    turn: 0,
    wall: 0,
    seat: player,
    players: freshPlayers(0),
    fouls: [],
    claim: null,
    hand: player === null ? undefined : [],
    drawn: null,
    legal: [],
    to_act: false,
    match: {
      hand: 0, hands, round: 0, seats: [0, 1, 2, 3], scores: [0, 0, 0, 0], phase: "playing",
      ready: [false, false, false, false], player, seq: 0,
    },
    last: null,
  };
}

/** A server view (snapshot) as the client keeps it: sorted hand, a copy we may replace freely. */
export function fromSnapshot(v: any): GameView {
  const view: GameView = structuredClone(v);
  if (view.hand) view.hand = sortTiles(view.hand);
  view.legal = view.legal ?? [];
  view.fouls = view.fouls ?? [];
  view.last = lastDiscard(view);
  // After an exhaustive draw every hand is shown (own tiles stay in view.hand).
  const hands = view.result?.hands;
  if (Array.isArray(hands)) {
    view.players = view.players.map((p, seat) => (Array.isArray(hands[seat]) ? { ...p, hand: sortTiles(hands[seat]) } : p));
  }
  return view;
}

/** The latest discard still in a pond (not claimed), for the highlight. */
function lastDiscard(v: GameView): { seat: number; tile: Tile } | null {
  if (v.claim && v.claim.kind === "discard") return { seat: v.claim.seat, tile: v.claim.tile };
  // Without the event order we can only point at the seat before the turn seat.
  if (v.phase === "turn" && v.drawn !== null && v.drawn !== undefined) {
    const prev = (v.turn + 3) % 4;
    const pond = v.players[prev]?.discards ?? [];
    const last = pond[pond.length - 1];
    if (last && !last[1]) return { seat: prev, tile: last[0] };
  }
  return null;
}

function mine(v: GameView, seat: number): boolean {
  return v.seat !== null && v.seat === seat;
}

function withPlayer(v: GameView, seat: number, f: (p: PlayerView) => PlayerView): GameView {
  const players = v.players.map((p, i) => (i === seat ? f(p) : p));
  return { ...v, players };
}

/** The tiles a claimer takes from its hand for a meld. */
export function meldTilesFromHand(meld: Meld, claimed: Tile): Tile[] {
  if (meld.kind === "chow") {
    const low = meld.tile!;
    return [low, low + 1, low + 2].filter((t, i, a) => t !== claimed || a.indexOf(claimed) !== i);
  }
  return Array(meld.kind === "kong" ? 3 : 2).fill(claimed);
}

/** Fold one projected event into the view. Unknown events leave it unchanged. */
export function applyEvent(v: GameView, e: GameEvent): GameView {
  if (v.adding && (e.t === "draw" || e.t === "flower") && e.seat === v.adding.seat) v = completeAddedKong(v);
  switch (e.t) {
    case "hand_start": {
      const seats: number[] = e.seats;
      const player = v.match.player;
      const seat = player === null ? null : seats.indexOf(player);
      return {
        ...v,
        seat,
        seq: e.seq ?? v.seq,
        result: undefined,
        claim: null,
        last: null,
        legal: [],
        to_act: false,
        match: {
          ...v.match, hand: e.hand, round: e.round, seats, scores: e.scores, phase: "playing",
          ready: [false, false, false, false], seq: e.seq ?? v.match.seq, deltas: undefined,
        },
      };
    }
    case "start": {
      return {
        ...v,
        seq: e.seq ?? v.seq,
        phase: "turn",
        dealer: e.dealer,
        prevalent: e.prevalent,
        turn: e.dealer,
        wall: e.wall - DEAL_SIZE,
        players: freshPlayers(e.dealer),
        fouls: [],
        claim: null,
        hand: v.seat === null ? undefined : [],
        drawn: null,
        result: undefined,
        last: null,
        adding: null,
      };
    }
    case "deal": {
      let n = withPlayer(v, e.seat, (p) => ({ ...p, tiles: e.count, hand: e.tiles ? sortTiles(e.tiles) : p.hand }));
      if (mine(v, e.seat) && e.tiles) n = { ...n, hand: sortTiles(e.tiles) };
      return n;
    }
    case "flower": {
      const fromHand = e.source === "deal";
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        flowers: [...p.flowers, e.tile],
        tiles: fromHand ? p.tiles - 1 : p.tiles,
        hand: fromHand && p.hand ? without(p.hand, e.tile) : p.hand,
      }));
      if (!fromHand) n = { ...n, wall: n.wall - 1 };
      if (fromHand && mine(v, e.seat) && n.hand) n = { ...n, hand: without(n.hand, e.tile) };
      return n;
    }
    case "draw": {
      const known = typeof e.tile === "number";
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        tiles: p.tiles + 1,
        hand: known && p.hand ? sortTiles([...p.hand, e.tile]) : p.hand,
      }));
      n = { ...n, wall: n.wall - 1, phase: "turn", turn: e.seat, claim: null };
      if (mine(v, e.seat) && known) n = { ...n, hand: sortTiles([...(n.hand ?? []), e.tile]), drawn: e.tile };
      else if (v.seat !== null) n = { ...n, drawn: null };
      return n;
    }
    case "turn": {
      return { ...v, phase: "turn", turn: e.seat, seq: e.seq ?? v.seq, claim: null, match: seqd(v.match, e.seq) };
    }
    case "discard": {
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        discards: [...p.discards, [e.tile, false] as [Tile, boolean]],
        tiles: p.tiles - 1,
        declared: p.declared || !!e.ready,
        hand: p.hand ? without(p.hand, e.tile) : p.hand,
      }));
      if (mine(v, e.seat) && n.hand) n = { ...n, hand: without(n.hand, e.tile) };
      return { ...n, drawn: null, last: { seat: e.seat, tile: e.tile } };
    }
    case "claim_window": {
      return {
        ...v, phase: "claim", turn: e.seat, claim: { kind: e.kind, tile: e.tile, seat: e.seat },
        seq: e.seq ?? v.seq, drawn: null, match: seqd(v.match, e.seq),
      };
    }
    case "claim": {
      const meld: Meld = e.meld;
      const from: number = e.from;
      const take = meldTilesFromHand(meld, e.tile);
      let n = withPlayer(v, from, (p) => {
        const discards = p.discards.slice();
        const i = discards.length - 1;
        if (i >= 0) discards[i] = [discards[i][0], true];
        return { ...p, discards };
      });
      n = withPlayer(n, e.seat, (p) => ({
        ...p,
        melds: [...p.melds, meld],
        tiles: p.tiles - take.length,
        hand: p.hand ? without(p.hand, ...take) : p.hand,
      }));
      if (mine(v, e.seat) && n.hand) n = { ...n, hand: without(n.hand, ...take) };
      return { ...n, phase: "turn", turn: e.seat, claim: null, drawn: null, last: null };
    }
    case "concealed_kong": {
      const known = typeof e.tile === "number";
      const meld: Meld = known ? { kind: "kong", tile: e.tile, concealed: true } : { kind: "kong", concealed: true };
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        melds: [...p.melds, meld],
        tiles: p.tiles - 4,
        hand: known && p.hand ? without(p.hand, e.tile, e.tile, e.tile, e.tile) : p.hand,
      }));
      if (mine(v, e.seat) && known && n.hand) n = { ...n, hand: without(n.hand, e.tile, e.tile, e.tile, e.tile) };
      return { ...n, drawn: null };
    }
    case "added_kong": {
      // The pung becomes a kong once nobody robs it: when the seat draws its replacement.
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        tiles: p.tiles - 1,
        hand: p.hand ? without(p.hand, e.tile) : p.hand,
      }));
      if (mine(v, e.seat) && n.hand) n = { ...n, hand: without(n.hand, e.tile) };
      return { ...n, drawn: null, adding: { seat: e.seat, tile: e.tile } };
    }
    case "foul": {
      const n = withPlayer(v, e.seat, (p) => ({ ...p, blocked: true }));
      return { ...n, fouls: [...v.fouls, [e.seat, e.kind, e.points]] };
    }
    case "hand_end": {
      // Concealed kongs are shown at the end of the hand; the winner lays the hand open.
      const kongs: Tile[][] = e.kongs ?? [[], [], [], []];
      let players = v.players.map((p, seat) => {
        const faces = [...(kongs[seat] ?? [])];
        return {
          ...p,
          melds: p.melds.map((m) => (m.concealed && m.tile === undefined ? { ...m, tile: faces.shift() } : m)),
        };
      });
      const win = e.win ?? null;
      let hand = v.hand;
      if (win) {
        // A claimed or robbed winning tile joins the winner's concealed tiles.
        const taken = !win.self_drawn;
        players = players.map((p) => (p.seat === win.seat
          ? { ...p, hand: sortTiles(win.tiles), tiles: taken ? p.tiles + 1 : p.tiles } : p));
        if (taken && mine(v, win.seat) && hand) hand = sortTiles([...hand, win.tile]);
        if (!win.self_drawn && !win.robbed && win.from !== null) {
          players = players.map((p) => {
            if (p.seat !== win.from) return p;
            const discards = p.discards.slice();
            const i = discards.length - 1;
            if (i >= 0 && discards[i][0] === win.tile) discards[i] = [discards[i][0], true];
            return { ...p, discards };
          });
        }
      }
      // Everybody's concealed tiles, when the server shows them at the end (e.g. after a draw).
      if (Array.isArray(e.hands)) {
        players = players.map((p, seat) => (Array.isArray(e.hands[seat]) ? { ...p, hand: sortTiles(e.hands[seat]) } : p));
      }
      return {
        ...v,
        players,
        hand,
        adding: null,
        phase: "over",
        seq: e.seq ?? v.seq,
        claim: null,
        drawn: null,
        result: { payments: e.payments, penalties: e.penalties, win, ...(Array.isArray(e.hands) ? { hands: e.hands } : {}) },
        match: seqd(v.match, e.seq),
      };
    }
    case "scores": {
      const finished = v.match.hand + 1 >= v.match.hands;
      return {
        ...v,
        match: { ...v.match, scores: e.scores, deltas: e.deltas, phase: finished ? "finished" : "between" },
      };
    }
    case "ready": {
      const ready = v.match.ready.slice();
      ready[e.player] = true;
      return { ...v, match: { ...v.match, ready } };
    }
    case "match_end": {
      return { ...v, match: { ...v.match, scores: e.scores, phase: "finished" } };
    }
    default:
      return v;
  }
}

function completeAddedKong(v: GameView): GameView {
  const { seat, tile } = v.adding!;
  const n = withPlayer(v, seat, (p) => ({
    ...p,
    melds: p.melds.map((m) => (m.kind === "pung" && m.tile === tile ? { ...m, kind: "kong" as MeldKind, added: true } : m)),
  }));
  return { ...n, adding: null };
}

function seqd(m: MatchInfo, seq: unknown): MatchInfo {
  return typeof seq === "number" ? { ...m, seq } : m;
}

/** A room "game" message: its events, then the recipient's legal actions and the seq they answer. */
export function applyGameMessage(
  v: GameView, msg: { events?: GameEvent[]; legal?: Action[]; to_act?: boolean; seq?: number; hint?: Hint | null },
): GameView {
  let n = v;
  for (const e of msg.events ?? []) n = applyEvent(n, e);
  const legal = msg.legal ?? [];
  n = { ...n, legal, to_act: msg.to_act ?? legal.length > 0 };
  // Waits with their fans, when the server computes them for this seat (hint.ts reads view.hint).
  if ("hint" in msg) n = { ...n, hint: msg.hint };
  if (typeof msg.seq === "number") n = { ...n, match: { ...n.match, seq: msg.seq } };
  return n;
}

/** The seq an action must carry now. */
export function actionSeq(v: GameView): number {
  return v.match.seq;
}

// ------------------------------------------------------------------------------------------------
// What the legal list offers, grouped for the prompts.

export interface Options {
  discards: Set<Tile>;
  readyDiscards: Set<Tile>; // 报听 together with the discard (大众馆)
  win: boolean;
  pass: boolean;
  chows: Tile[]; // lows
  pung: boolean;
  kong: boolean; // on a discard
  concealedKongs: Tile[];
  addedKongs: Tile[];
  cont: boolean;
}

export function options(legal: readonly Action[] | undefined): Options {
  const o: Options = {
    discards: new Set(), readyDiscards: new Set(), win: false, pass: false, chows: [], pung: false, kong: false,
    concealedKongs: [], addedKongs: [], cont: false,
  };
  for (const a of legal ?? []) {
    switch (a.a) {
      case "discard": (a.ready ? o.readyDiscards : o.discards).add(a.tile); break;
      case "win": o.win = true; break;
      case "pass": o.pass = true; break;
      case "chow": o.chows.push(a.low); break;
      case "pung": o.pung = true; break;
      case "kong": o.kong = true; break;
      case "concealed_kong": o.concealedKongs.push(a.tile); break;
      case "added_kong": o.addedKongs.push(a.tile); break;
      case "continue": o.cont = true; break;
    }
  }
  o.chows.sort((a, b) => a - b);
  return o;
}

/** A claim prompt is shown only when there is something besides passing. */
export function hasClaim(o: Options): boolean {
  return o.win || o.chows.length > 0 || o.pung || o.kong;
}

/** Own concealed tiles in display order: sorted, with the drawn tile set apart (last). */
export function handLayout(v: GameView): { tiles: Tile[]; drawn: Tile | null } {
  const hand = v.hand ?? [];
  const drawn = v.drawn ?? null;
  if (drawn === null || !hand.includes(drawn)) return { tiles: sortTiles(hand), drawn: null };
  return { tiles: sortTiles(without(hand, drawn)), drawn };
}

/** The seat's relative position to the viewer: 0 self (bottom), 1 right (next), 2 across, 3 left. */
export function relative(seat: number, viewer: number | null): number {
  return (seat - (viewer ?? 0) + 4) % 4;
}
