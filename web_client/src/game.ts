// The view state of a table, shaped like the server's view dict (game/views.py `view`, extended by
// game/match.py `view` with "match"), and the reduction of projected events (game/views.py
// EVENT_FIELDS) into it. The server's snapshot is the truth; events move it on between snapshots.
//
// Everything here is pure: `applyEvent(view, event)` returns a new view and never mutates its input.

import { Tile, sortTiles, without } from "./tiles";

import type * as W from "./wire.gen";
import type { Action, Meld, PlayerView } from "./wire.gen";

// The wire's shapes (server/wire.py, generated into wire.gen.ts).
export type { Action, Fan, Hint, HintWait, MatchInfo, Meld, PlayerView, ResultView, WinView } from "./wire.gen";
export type MeldKind = W.Meld["kind"];
export type GameEvent = W.GameEvent;

/** The server's view (a snapshot's ``game``), with what the client adds while it applies events. */
export interface GameView extends W.GameView {
  last?: { seat: number; tile: Tile } | null; // the latest discard (client-side: for the highlight)
  adding?: { seat: number; tile: Tile } | null; // an added kong waiting for its rob window to close
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
      ready: [false, false, false, false], player, seq: 0, no_win: [false, false, false, false], last: hands - 1,
      void: false,
    },
    last: null,
  };
}

/** A server view (snapshot) as the client keeps it: sorted hand, a copy we may replace freely. */
export function fromSnapshot(v: W.GameView): GameView {
  const view: GameView = structuredClone(v);
  if (view.hand) view.hand = sortTiles(view.hand);
  view.legal = view.legal ?? []; // a spectator's view has none
  view.last = lastDiscard(view);
  // After an exhaustive draw every hand is shown (own tiles stay in view.hand).
  const hands = view.result?.hands;
  if (hands) view.players = view.players.map((p, seat) => ({ ...p, hand: sortTiles(hands[seat]) }));
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
        seq: e.seq,
        result: undefined,
        claim: null,
        last: null,
        legal: [],
        to_act: false,
        match: {
          ...v.match, hand: e.hand, round: e.round, seats, scores: e.scores, phase: "playing",
          ready: [false, false, false, false], seq: e.seq, deltas: undefined,
        },
      };
    }
    case "start": {
      return {
        ...v,
        seq: e.seq,
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
      const tile = e.tile; // the own seat's draw only
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        tiles: p.tiles + 1,
        hand: tile !== undefined && p.hand ? sortTiles([...p.hand, tile]) : p.hand,
      }));
      n = { ...n, wall: n.wall - 1, phase: "turn", turn: e.seat, claim: null };
      if (mine(v, e.seat) && tile !== undefined) n = { ...n, hand: sortTiles([...(n.hand ?? []), tile]), drawn: tile };
      else if (v.seat !== null) n = { ...n, drawn: null };
      return n;
    }
    case "turn": {
      return { ...v, phase: "turn", turn: e.seat, seq: e.seq, claim: null, match: { ...v.match, seq: e.seq } };
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
        seq: e.seq, drawn: null, match: { ...v.match, seq: e.seq },
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
      const tile = e.tile; // face down for the other seats
      const meld: Meld = tile !== undefined ? { kind: "kong", tile, concealed: true } : { kind: "kong", concealed: true };
      let n = withPlayer(v, e.seat, (p) => ({
        ...p,
        melds: [...p.melds, meld],
        tiles: p.tiles - 4,
        hand: tile !== undefined && p.hand ? without(p.hand, tile, tile, tile, tile) : p.hand,
      }));
      if (mine(v, e.seat) && tile !== undefined && n.hand) n = { ...n, hand: without(n.hand, tile, tile, tile, tile) };
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
      const kongs = e.kongs;
      let players = v.players.map((p, seat) => {
        const faces = [...kongs[seat]];
        return {
          ...p,
          melds: p.melds.map((m) => (m.concealed && m.tile === undefined ? { ...m, tile: faces.shift() } : m)),
        };
      });
      const win = e.win;
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
      const hands = e.hands;
      if (hands) players = players.map((p, seat) => ({ ...p, hand: sortTiles(hands[seat]) }));
      return {
        ...v,
        players,
        hand,
        adding: null,
        phase: "over",
        seq: e.seq,
        claim: null,
        drawn: null,
        result: { payments: e.payments, penalties: e.penalties, win, ...(hands ? { hands } : {}) },
        match: { ...v.match, seq: e.seq },
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

/** A room "game" message: its events, then the recipient's legal actions and the seq they answer. */
export function applyGameMessage(
  v: GameView, msg: Pick<W.GameMsg, "events" | "legal" | "to_act"> & Partial<Pick<W.GameMsg, "seq" | "hint">>,
): GameView {
  let n = v;
  for (const e of msg.events) n = applyEvent(n, e);
  n = { ...n, legal: msg.legal, to_act: msg.to_act };
  // Waits with their fans, when the server computes them for this seat (hint.ts reads view.hint).
  if ("hint" in msg) n = { ...n, hint: msg.hint };
  if (typeof msg.seq === "number") n = { ...n, match: { ...n.match, seq: msg.seq } }; // null: no prompt
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
