// The client's whole state and the pure reduction of server messages into it (docs/protocol.md,
// docs/rooms.md "Messages sent"). Side effects (sending, storage, timers) live in app.ts.

import { GameView, applyGameMessage, emptyView, fromSnapshot } from "./game";
import type { Status } from "./net";
import type {
  Clock, HandRecord, MatchRecord, RoomInfo, RoomSummary, ServerMessage, TournamentEventMsg, You,
} from "./wire.gen";
import { ListView, emptyList, listAnswer } from "./lists";
import { applyDelta } from "./tournament";
import type { SanctionRecord, TournamentDelta, TournamentSummary, TournamentView } from "./tournament";

// The wire's shapes (server/wire.py, generated into wire.gen.ts).
export type { Clock, HandRecord, MatchRecord, RoomConfig, RoomInfo, RoomSummary, SeatInfo, You } from "./wire.gen";

export interface AppState {
  status: Status;
  me: { player: string; name: string; token: string; login: string | null } | null;
  signingIn: boolean;
  queued: string | null;
  bots: string[]; // the external bots this server registered (welcome), which add_bot accepts by name
  rooms: RoomSummary[];
  roomList: ListView; // the public rooms' search and page
  room: RoomInfo | null;
  you: You | null;
  game: GameView | null;
  clock: Clock | null;
  clockOffset: number | null; // server time minus client time, seconds
  records: { matches: MatchRecord[]; current: HandRecord[] };
  handResult: HandRecord | null; // shown until dismissed or the next hand starts
  matchResult: MatchRecord | null;
  reveals: Record<number, { id?: number | null; seed?: number | string; salt?: string; commitment?: string }>;
  lastN: number; // the last numbered push on this connection
  needSnapshot: boolean; // a gap in the numbering: ask for a snapshot
  error: { code: string; message: string; at: number } | null;
  replaced: boolean;
  names: Record<string, string>; // player id -> name, from whatever the server tells
  chat: { from: string; name: string; text: string }[];
  tournaments: TournamentSummary[]; // the lobby's list
  tournamentList: ListView; // its search and page
  tviews: Record<string, TournamentView>; // the tournaments followed, by id
  tables: Record<string, { tournament: string; table: string }>; // room id -> tournament table
  tournamentErrors: Record<string, string>; // tournament id -> the error code its fetch got
  notices: Notice[]; // banners: public notices, your sanctions, a substitute taking your seat
  confirmLeave: boolean; // the "leave this room / match?" question is open
  quickUntil: number | null; // client time (s) when bots should fill the quick-match table we wait for
  quickHands: number | null; // the length of the quick match we wait for
  quickWaiting: number | null; // players in that queue, us included
  quickSince: number | null; // client time (s) when we joined that queue (the server's count: a reload keeps it)
  roomGone: boolean; // the server closed the room while its final ranking is still on screen
}

/** A banner that stays until dismissed (or replaced by newer ones). */
export interface Notice {
  key: string;
  kind: "public" | "mine" | "cancelled" | "substituted" | "tournament_cancelled";
  tournament: string | null;
  record?: SanctionRecord;
  reason?: string;
  at: number;
}

const MAX_NOTICES = 6;

function addNotice(s: AppState, n: Notice): AppState {
  if (s.notices.some((x) => x.key === n.key)) return s;
  return { ...s, notices: [...s.notices, n].slice(-MAX_NOTICES) };
}

/** A tournament's whole view. */
function reduceView(n: AppState, v: TournamentView): AppState {
  return { ...n, tviews: { ...n.tviews, [v.id]: v }, names: v.names ? { ...n.names, ...v.names } : n.names };
}

/** One of a tournament's events: what just happened (docs/protocol.md "Tournaments"). */
function reduceTournament(n: AppState, msg: TournamentEventMsg, clientNow: number): AppState {
  const tid = msg.tournament;
  const me = n.me?.player;
  switch (msg.event) {
    case "sanction": {
      const r = msg.sanction;
      if (r.public) return addNotice(n, { key: `${tid}:${r.id}`, kind: "public", tournament: tid, record: r, at: clientNow });
      if (me && r.player === me) return addNotice(n, { key: `${tid}:${r.id}`, kind: "mine", tournament: tid, record: r, at: clientNow });
      return n;
    }
    case "sanction_cancelled": {
      const r = msg.sanction;
      const notices = n.notices.filter((x) => x.key !== `${tid}:${r.id}`);
      const out = { ...n, notices };
      return me && r.player === me ? addNotice(out, { key: `${tid}:${r.id}:x`, kind: "cancelled", tournament: tid, record: r, at: clientNow }) : out;
    }
    case "cancelled":
      return addNotice(n, { key: `${tid}:cancelled`, kind: "tournament_cancelled", tournament: tid, reason: msg.reason, at: clientNow });
    default:
      return n;
  }
}

export function initialState(): AppState {
  return {
    status: "closed", me: null, signingIn: false, queued: null, bots: [], rooms: [], roomList: emptyList(), room: null, you: null, game: null,
    clock: null, clockOffset: null, records: { matches: [], current: [] }, handResult: null, matchResult: null,
    reveals: {}, lastN: 0, needSnapshot: false, error: null, replaced: false, names: {}, chat: [],
    tournaments: [], tournamentList: emptyList(), tviews: {}, tables: {}, tournamentErrors: {}, notices: [],
    confirmLeave: false, roomGone: false, quickUntil: null, quickHands: null, quickWaiting: null,
    quickSince: null,
  };
}

/** A snapshot of a room whose match has just ended (a reload on the last result or the ranking): its
 * ranking, for a player who sat in it, until they leave or rematch. Not for tournament tables. */
function endedMatch(info: RoomInfo, you: You | null, game: unknown, records: AppState["records"]): MatchRecord | null {
  const last = records.matches[records.matches.length - 1];
  if (!last || game || info.phase === "playing" || info.table || !you || you.seat === null) return null;
  const current = records.current[records.current.length - 1];
  if (!current || current.match !== last.match || !last.ids.includes(you.id)) return null;
  return last;
}

function youFrom(info: RoomInfo, me: string | undefined, prev: You | null): You | null {
  if (!me) return prev;
  const seat = info.seats.findIndex((s) => s !== null && s.id === me);
  const member = seat >= 0 || prev !== null; // a spectator stays one until told it left
  if (!member) return null;
  return { id: me, seat: seat >= 0 ? seat : null, host: info.host === me, hints: prev?.hints ?? true }; // the room sends hints unless told not to
}

function namesFrom(info: { names?: Record<string, string>; seats: ({ id: string; name?: string } | null)[] }): Record<string, string> {
  const out: Record<string, string> = { ...(info.names ?? {}) };
  for (const s of info.seats) if (s && s.name) out[s.id] = s.name;
  return out;
}

/** The best estimate of (server clock - client clock) after a clock arrives at ``clientNow``. */
export function estimateOffset(prev: number | null, clock: Clock | null | undefined, clientNow: number): number | null {
  if (!clock) return prev;
  if (typeof clock.started !== "number") return prev;
  // ``started`` is a server time at or before the send: a lower bound on the offset. Keep the largest.
  const candidate = clock.started - clientNow;
  return prev === null ? candidate : Math.max(prev, candidate);
}

/** Reduce one server message. ``clientNow`` is the client's clock in seconds. */
export function reduce(s: AppState, msg: ServerMessage, clientNow: number): AppState {
  let n = s;
  if (typeof msg.n === "number") {
    const gap = s.lastN > 0 && msg.n > s.lastN + 1 && msg.t !== "snapshot";
    n = { ...n, lastN: msg.n, needSnapshot: n.needSnapshot || gap };
  }
  switch (msg.t) {
    case "account":
      return n.me && msg.player === n.me.player ? { ...n, me: { ...n.me, login: msg.login ?? null } } : n;
    case "welcome":
      return {
        ...n, me: { player: msg.player, name: msg.name, token: msg.token, login: msg.login ?? null }, signingIn: false,
        queued: msg.queued, bots: msg.bots ?? [],
        names: { ...n.names, [msg.player]: msg.name },
        ...(msg.room ? {} : { room: null, you: null, game: null, clock: null }),
      };
    case "rooms": {
      const { list, take } = listAnswer(n.roomList, msg);
      if (!take) return { ...n, roomList: list };
      const names = { ...n.names };
      for (const r of msg.rooms as RoomSummary[]) Object.assign(names, namesFrom(r));
      return { ...n, rooms: msg.rooms, roomList: list, names };
    }
    case "queued":
      return {
        ...n, queued: msg.type, quickHands: msg.hands, quickWaiting: msg.waiting,
        quickUntil: typeof msg.fill === "number" ? clientNow + msg.fill : null,
        quickSince: typeof msg.waited === "number" ? clientNow - msg.waited : null,
      };
    case "snapshot": {
      const info: RoomInfo = msg.info;
      const you: You = msg.you;
      const game = msg.game ? fromSnapshot(msg.game) : null;
      return {
        ...n, queued: null, room: info, you, game, roomGone: false, clock: msg.clock,
        clockOffset: estimateOffset(n.clockOffset, msg.clock, clientNow),
        records: msg.records, names: { ...n.names, ...namesFrom(info) },
        needSnapshot: false,
        handResult: game && game.phase === "over" && game.match.phase !== "playing"
          ? (msg.records.current[msg.records.current.length - 1] ?? n.handResult) : n.handResult,
        matchResult: n.matchResult ?? endedMatch(info, you, game, msg.records),
      };
    }
    case "room": {
      const info = msg.info;
      const starting = info.phase === "playing" && n.room?.phase !== "playing";
      const you = youFrom(info, n.me?.player, n.you);
      let out: AppState = { ...n, queued: null, room: info, you, names: { ...n.names, ...namesFrom(info) } };
      if (starting) {
        out = {
          ...out, game: emptyView(you?.seat ?? null, info.config.hands), handResult: null, matchResult: null,
          records: { ...out.records, current: [] },
        };
      }
      return out;
    }
    case "game": {
      if (!n.room) return n;
      const base = n.game ?? emptyView(n.you?.seat ?? null, n.room.config.hands);
      const game = applyGameMessage(base, msg);
      const newHand = msg.events.some((e) => e.t === "hand_start");
      return {
        ...n, game, clock: msg.clock, clockOffset: estimateOffset(n.clockOffset, msg.clock, clientNow),
        handResult: newHand ? null : n.handResult,
      };
    }
    case "hand_result": {
      const rec: HandRecord = msg.record;
      const current = [...n.records.current.filter((h) => !(h.match === rec.match && h.hand === rec.hand)), rec];
      return { ...n, records: { ...n.records, current }, handResult: rec };
    }
    case "match_result": {
      const rec: MatchRecord = msg.record;
      return { ...n, records: { ...n.records, matches: [...n.records.matches, rec] }, matchResult: rec };
    }
    case "commitment":
      return { ...n, reveals: { ...n.reveals, [msg.match]: { ...n.reveals[msg.match], commitment: msg.commitment } } };
    case "reveal":
      return {
        ...n,
        reveals: {
          ...n.reveals,
          [msg.match]: { id: msg.id, seed: msg.seed, salt: msg.salt, commitment: msg.commitment },
        },
      };
    case "closed":
      // The server dropped the room (idle 30 min after a match, abandoned): we are in no room any more.
      if (msg.room && n.room && msg.room !== n.room.id) return n;
      if (n.matchResult) return { ...n, roomGone: true }; // the ranking stays until its reader leaves it
      return { ...n, room: null, you: null, game: null, clock: null, handResult: null, matchResult: null, confirmLeave: false };
    case "kicked":
    case "left":
      return { ...n, room: null, you: null, game: null, clock: null, handResult: null, matchResult: null, confirmLeave: false };
    case "replaced":
      return { ...n, replaced: true };
    case "chat":
      return { ...n, chat: [...n.chat.slice(-49), { from: msg.from, name: msg.name, text: msg.text }], names: { ...n.names, [msg.from]: msg.name } };
    case "tournaments": {
      const { list, take } = listAnswer(n.tournamentList, msg);
      return take ? { ...n, tournaments: msg.tournaments, tournamentList: list } : { ...n, tournamentList: list };
    }
    case "tournament":
      return reduceView(n, msg.tournament);
    case "tournament_event":
      return reduceTournament(n, msg, clientNow);
    case "tournament_delta": {
      // A change to a followed tournament; one that does not follow our view leaves it as it is (the
      // app then asks for a whole view).
      const v = typeof msg.tournament === "string" ? n.tviews[msg.tournament] : undefined;
      const next = v ? applyDelta(v, msg as TournamentDelta) : null;
      if (!next) return n;
      return { ...n, tviews: { ...n.tviews, [next.id]: next }, names: { ...n.names, ...(msg.set?.names ?? {}), ...(msg.names ?? {}) } };
    }
    case "table":
      // Your tournament table has opened; its room's snapshot follows.
      if (msg.room === undefined) return n;
      return { ...n, tables: { ...n.tables, [msg.room]: { tournament: msg.tournament, table: msg.table } } };
    case "substituted":
      // The tournament put a can't-win substitute in your seat (forfeit or suspension).
      return addNotice(n, { key: `sub:${msg.room}:${msg.player}`, kind: "substituted", tournament: n.room ? n.tables[n.room.id]?.tournament ?? null : null, at: clientNow });
    case "error":
      // A stale answer (somebody claimed first, the window closed) is a harmless race: not shown.
      if (msg.code === "action/stale" || msg.code === "action/not_your_turn") return n;
      return { ...n, signingIn: false, error: { code: msg.code, message: msg.message, at: clientNow } };
    default:
      return n;
  }
}

/** Seconds left on the open decision, as [free time left, bank left], from the viewer's clock. */
export function countdown(clock: Clock | null, offset: number | null, clientNow: number): { left: number; free: number; bank: number } | null {
  if (!clock || clock.deadline === null || clock.deadline === undefined) return null;
  const now = clientNow + (offset ?? 0);
  let left = Math.max(0, clock.deadline - now);
  // The offset is a lower bound (see estimateOffset): never show more than the decision's whole time.
  if (typeof clock.started === "number") left = Math.min(left, clock.deadline - clock.started);
  if (clock.decision === "turn" && typeof clock.free_until === "number") {
    let free = Math.min(Math.max(0, clock.free_until - now), left);
    if (typeof clock.started === "number") free = Math.min(free, clock.free_until - clock.started);
    return { left, free, bank: Math.max(0, left - free) };
  }
  return { left, free: left, bank: 0 };
}

/** A player's display name: from ``names``, the page's own (the room's by default), else any name the
 * server gave, else a short form of the id. The server numbers look-alike names per room and per
 * tournament ("Ann", "Ann #2"), so one player may be "Ann #2" at the table and "Ann" elsewhere. */
export function displayName(s: AppState, id: string | null | undefined, botLabel = "Bot",
  names: Record<string, string> | undefined = s.room?.names): string {
  if (!id) return "";
  if (names?.[id]) return names[id];
  if (s.names[id]) return s.names[id];
  const m = /^bot-(\d+)$/.exec(id);
  if (m) return `${botLabel} ${m[1]}`;
  return id;
}
