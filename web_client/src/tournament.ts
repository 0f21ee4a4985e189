// Tournaments as the client sees them: the shapes of `Tournament.summary()` and `Tournament.view()`
// (rooms/tournament/tournament.py, docs/tournaments.md "View"), and the pure helpers the pages use:
// 标准分 display, times, the create form's config, who sits where, what the viewer may do now.

export type TournamentState = "registering" | "running" | "finished" | "cancelled";

// The wire's shapes (server/wire.py, generated into wire.gen.ts).
export type {
  FoulEvidence, SanctionRecord, SeatResult, SessionView, StandingRow, TableView, TeamRow, TournamentConfig,
  TournamentPlayer, TournamentSummary, TournamentView,
} from "./wire.gen";
import type {
  SanctionRecord, SessionView, StandingRow, TableView, TournamentDeltaMsg, TournamentPlayer, TournamentSummary, TournamentView,
} from "./wire.gen";

/** What changed since a view (docs/protocol.md "Tournament deltas"); rooms/tournament/delta.py builds it. */
export type TournamentDelta = TournamentDeltaMsg;

/** ``v`` with ``d`` applied, or null when ``d`` does not follow from ``v`` (ask for a whole view). */
export function applyDelta(v: TournamentView, d: TournamentDelta): TournamentView | null {
  if (v.tseq === undefined || d.from !== v.tseq) return null;
  const out: TournamentView = { ...v, ...(d.set ?? {}), tseq: d.tseq };
  if (d.names) out.names = { ...(out.names ?? {}), ...d.names };
  const sessions = [...out.sessions];
  for (const s of d.sessions ?? []) sessions[s.index - 1] = s;
  for (const t of d.tables ?? []) {
    const s = sessions[t.session - 1];
    if (!s) continue;
    const at = s.tables.findIndex((x) => x.table === t.table);
    const tables = at >= 0 ? s.tables.map((x, i) => (i === at ? t : x)) : [...s.tables, t];
    sessions[t.session - 1] = { ...s, tables };
  }
  out.sessions = sessions;
  if (d.players || d.unregistered) {
    const rows = new Map(out.players.map((p) => [p.id, p] as const));
    for (const p of d.players ?? []) rows.set(p.id, p);
    for (const id of d.unregistered ?? []) rows.delete(id);
    out.players = [...rows.values()].sort((a, b) => a.order - b.order);
  }
  if (d.standings) {
    const rows = new Map(out.standings.map((r) => [r.player, r] as const));
    let order = d.ranking;
    if (!order) {
      // the old order, the unregistered players' rows removed and the new rows at the end
      const gone = new Set(d.unregistered ?? []);
      order = [...[...rows.keys()].filter((p) => !gone.has(p)), ...d.standings.map((r) => r.player).filter((p) => !rows.has(p))];
    }
    for (const r of d.standings) rows.set(r.player, r);
    out.standings = order.map((id) => rows.get(id)).filter((r): r is StandingRow => r !== undefined);
  }
  return out;
}

/** R98 第十四条6: 有意诈和 is a declaration two or more tiles from ready. */
export const INTENT_FROM_READY = 2;

/** Whether the referee's panel offers the 有意诈和 ruling (a 停赛) on this record: a false win, not
 *  cancelled, whose evidence is two or more tiles from ready, by a player not suspended yet. */
export function canRuleIntentional(v: TournamentView, r: SanctionRecord): boolean {
  return isReferee(v) && v.state !== "cancelled" && r.kind === "false_win" && !r.cancelled && !!r.evidence
    && r.evidence.from_ready >= INTENT_FROM_READY && r.player !== null && !v.suspended.includes(r.player);
}

export const SEATINGS = ["random", "standing", "snake", "swiss"] as const;
export const SANCTION_KINDS = ["warning", "points", "stop_win", "suspend", "notice"] as const;
export const POINT_LEVELS = [5, 10, 20, 30, 40, 50, 60] as const; // R98 第十三条(二)2

/** A ×12 标准分 as players read it: 48 → "4", 21 → "1.75", 28 → "2.33"; null (not yet) → "–". */
export function formatStd(std12: number | null | undefined): string {
  if (std12 === null || std12 === undefined || !Number.isFinite(std12)) return "–";
  const s = (Math.round((std12 / 12) * 100) / 100).toFixed(2).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** A time (Unix seconds) in the viewer's time zone: "14:05" today, else "3-21 14:05" (zh "3月21日 14:05"). */
export function formatWhen(sec: number, nowSec: number, lang: "zh" | "en"): string {
  const d = new Date(sec * 1000);
  const now = new Date(nowSec * 1000);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const sameDay = d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  if (sameDay) return hm;
  const day = lang === "zh" ? `${d.getMonth() + 1}月${d.getDate()}日` : `${d.getFullYear() === now.getFullYear() ? "" : d.getFullYear() + "-"}${d.getMonth() + 1}-${d.getDate()}`;
  return lang === "zh" && d.getFullYear() !== now.getFullYear() ? `${d.getFullYear()}年${day} ${hm}` : `${day} ${hm}`;
}

/** Minutes from now to ``sec``, rounded away from zero when partial (positive: ahead). */
export function minutesUntil(sec: number, nowSec: number): number {
  const m = (sec - nowSec) / 60;
  return m >= 0 ? Math.ceil(m) : -Math.ceil(-m);
}

/** The value of an <input type="datetime-local"> for a Date (local time, minutes). */
export function datetimeLocal(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Unix seconds (an integer) of a datetime-local value, or null if it is not one. */
export function parseDatetimeLocal(v: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v.trim());
  if (!m) return null;
  const d = new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], m[6] ? +m[6] : 0);
  const ms = d.getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export interface CreateForm {
  name: string;
  type: string;
  sessions: number;
  hands: number;
  timeLimit: number; // minutes; 0: none
  timeUp: "void" | "finish";
  seating: string;
  scheduled: boolean; // false: the organiser starts every session
  firstStart: string; // datetime-local
  gap: number; // minutes between scheduled starts; 0: later sessions are started by the organiser
  referee: string; // a player id; empty: yourself
  duplicate?: boolean; // 复式: every table of a session plays the same walls
}

export type ConfigResult = { config: Record<string, unknown> } | { error: "name" | "start" | "past" | "numbers" };

/** The `tournament_create` config of the form (integers only: the protocol has no floats). */
export function buildConfig(f: CreateForm, me: string | null, nowSec: number): ConfigResult {
  const name = f.name.trim();
  if (!name || name.length > 60) return { error: "name" };
  const ints = [f.sessions, f.hands, f.timeLimit, f.gap];
  if (ints.some((x) => !Number.isInteger(x) || x < 0) || f.sessions < 1 || f.hands < 1) return { error: "numbers" };
  const config: Record<string, unknown> = {
    name, type: f.type, sessions: f.sessions, hands: f.hands, time_limit: f.timeLimit, seating: f.seating,
  };
  if (f.timeLimit > 0) config.time_up = f.timeUp;
  if (f.duplicate) config.duplicate = true;
  if (f.scheduled) {
    const first = parseDatetimeLocal(f.firstStart);
    if (first === null) return { error: "start" };
    if (first <= nowSec) return { error: "past" };
    config.starts = Array.from({ length: f.sessions }, (_, i) => (i === 0 ? first : f.gap > 0 ? first + i * f.gap * 60 : null));
  }
  const referee = f.referee.trim();
  if (referee && referee !== me) config.referee = referee;
  return { config };
}

/** The viewer's roles. */
export function isReferee(v: TournamentView): boolean {
  return v.you.roles.includes("referee");
}

export function isOrganiser(v: TournamentView): boolean {
  return v.you.roles.includes("organiser");
}

export function findTable(v: TournamentView, key: string | null | undefined): TableView | null {
  if (!key) return null;
  for (const s of v.sessions) for (const t of s.tables) if (t.table === key) return t;
  return null;
}

/** The session being played, or null. */
export function currentSession(v: TournamentView): SessionView | null {
  return v.session === null ? null : v.sessions[v.session - 1] ?? null;
}

/** The next session that has not started, or null. */
export function nextSession(v: TournamentView): SessionView | null {
  return v.sessions.find((s) => s.state === "pending") ?? null;
}

/** The 1-based hand being played at a table (as the tournament counts it), or null. */
export function handInPlay(t: TableView, hands: number): number | null {
  if (t.state !== "playing") return null;
  const n = t.hands.reduce((m, h) => Math.max(m, h.hand), 0) + 1;
  return n <= hands ? n : null;
}

/** The viewer's table in the session being played. */
export function myTable(v: TournamentView): TableView | null {
  const me = v.players.find((p) => p.id === v.you.id);
  return me ? findTable(v, me.table) : null;
}

export function me(v: TournamentView): TournamentPlayer | null {
  return v.players.find((p) => p.id === v.you.id) ?? null;
}

/** Whether the check-in button makes sense now (the server has the last word). */
export function canCheckIn(v: TournamentView, nowSec: number): boolean {
  const p = me(v);
  if (!p || p.checked_in || p.status !== "active" || !v.config.checkin_required) return false;
  if (v.state !== "registering" && v.state !== "running") return false;
  const cur = currentSession(v);
  if (cur) {
    // the session is under way: a player whose table waits may still arrive (late)
    const t = findTable(v, p.table);
    return !!t && t.state === "waiting" && !t.seats.some((s) => s.player === p.id && s.substituted);
  }
  const nxt = nextSession(v);
  if (!nxt) return false;
  return nxt.scheduled === null || nxt.checkin_opens === null || nowSec >= nxt.checkin_opens;
}

export function canRegister(v: TournamentView, nowSec: number): boolean {
  if (v.state !== "registering" || v.you.registered) return false;
  const first = v.sessions[0];
  return !(first && first.scheduled !== null && nowSec >= first.scheduled) && v.players.length < v.config.max_players;
}

export function canUnregister(v: TournamentView, nowSec: number): boolean {
  if (v.state !== "registering" || !v.you.registered) return false;
  const first = v.sessions[0];
  return !(first && first.scheduled !== null && nowSec >= first.scheduled);
}

/** A bot competitor's player id is ``bot:<name>`` (rooms/botzone_seats.py; player ids never hold ":"). */
export const BOT_PREFIX = "bot:";

/** The external bot's name of a competitor, or null for a player. */
export function competitorBot(id: string): string | null {
  return id.startsWith(BOT_PREFIX) ? id.slice(BOT_PREFIX.length) : null;
}

/** Before the first start, while registration is open (the server has the last word). */
function beforeStart(v: TournamentView, nowSec: number): boolean {
  const first = v.sessions[0];
  return v.state === "registering" && !(first && first.scheduled !== null && nowSec >= first.scheduled);
}

/** The server's external bots (welcome's ``bots``) the organiser may still enter: none entered yet,
 *  before the start, with a place left (register_bot, docs/tournaments.md "Bots as competitors"). */
export function botsToEnter(v: TournamentView, bots: readonly string[], nowSec: number): string[] {
  if (!isOrganiser(v) || !beforeStart(v, nowSec) || v.players.length >= v.config.max_players) return [];
  const entered = new Set(v.players.map((p) => competitorBot(p.id)));
  return bots.filter((b) => !entered.has(b));
}

/** Whether the organiser may take a bot competitor out (unregister_bot): before the start only. */
export function canRemoveBot(v: TournamentView, id: string, nowSec: number): boolean {
  return isOrganiser(v) && competitorBot(id) !== null && beforeStart(v, nowSec);
}

/** The organiser may start the next session now when none is being played. */
export function canStart(v: TournamentView): boolean {
  return isOrganiser(v) && (v.state === "registering" || v.state === "running") && v.session === null && nextSession(v) !== null;
}

export function canCancel(v: TournamentView): boolean {
  return isOrganiser(v) && v.state === "registering";
}

/** Sanctions about the viewer (including cancelled ones), newest first. */
export function ownSanctions(v: TournamentView): SanctionRecord[] {
  return v.sanctions.filter((r) => r.player !== null && r.player === v.you.id).sort((a, b) => b.id - a.id);
}

/** Public notices (通报) still in force, newest first. */
export function publicNotices(v: TournamentView): SanctionRecord[] {
  const seen = new Set<number>();
  const out: SanctionRecord[] = [];
  for (const r of [...v.notices, ...v.sanctions.filter((x) => x.public && x.cancelled === null)]) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return out.sort((a, b) => b.id - a.id);
}

/** The points a sanction takes away, as shown: "−10", or "" when none. */
export function pointsText(r: SanctionRecord): string {
  return r.points ? `−${r.points}` : "";
}

/** The time shown for the next session in a list: its scheduled start, or null (the organiser starts it). */
export function summaryNext(s: TournamentSummary): number | null {
  return typeof s.next_start === "number" ? s.next_start : null;
}

/** A scheduled instance open for sign-up: registration open and a start time on the clock. */
export function openForSignUp(s: TournamentSummary, nowSec: number): boolean {
  return s.state === "registering" && typeof s.next_start === "number" && s.next_start > nowSec && s.players < s.max_players;
}
