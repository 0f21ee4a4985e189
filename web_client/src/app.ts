// The controller: owns the connection, the state, what is remembered in localStorage, and the few
// things the client does by itself (sign in again after a reconnect, ask for a snapshot after a gap,
// answer "pass" when a claim window offers nothing else).

import type { Action } from "./game";
import { actionSeq, hasClaim, options } from "./game";
import { defaultLang, setLang } from "./i18n";
import { Connection, Msg, Status, wsUrl } from "./net";
import type { Command } from "./wire.gen";
import { ListView, PublicList } from "./lists";
import { AppState, initialState, reduce } from "./state";
import { Sound, cuesFor } from "./sound";
import type { Lang } from "./tiles";

export interface Prefs {
  lang: Lang;
  hint: boolean;
  name: string;
  login: string; // the claimed account's login name this browser last signed in to ("": a guest)
  autoWin: boolean; // declare a win as soon as one is offered (off unless switched on)
  noCalls: boolean; // never asked to chow, pung or kong a discard: such windows pass by themselves
  quickHands: number; // the quick-match length last chosen: 4, 8 or 16
}

export const QUICK_HANDS = [4, 8, 16] as const;

const KEY_TOKEN = "guobiao.token";
const KEY_PREFS = "guobiao.prefs";
const KEY_TABLES = "guobiao.tables"; // room id -> tournament table, so a reload still knows where you play

export interface Route {
  join?: string;
  watch?: string;
  replay?: string;
  hand?: number; // with replay: the hand to open (1-based)
  tournament?: string;
  account?: boolean;
  player?: string;
}

/** The part of the address after # says what to open: #join=CODE, #watch=CODE or room id, #replay=ID
 * (&hand=N: open hand N), #tournament=ID, #account (your account: sign-in, sessions, privacy), #player=ID (a public profile). */
export function parseRoute(hash: string): Route {
  const out: Route = {};
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  for (const k of ["join", "watch", "replay", "tournament", "player"] as const) {
    const v = params.get(k);
    if (v) out[k] = v;
  }
  if (params.has("account")) out.account = true;
  const hand = Number(params.get("hand"));
  if (out.replay && Number.isInteger(hand) && hand >= 1) out.hand = hand;
  return out;
}

export function inviteLink(origin: string, code: string): string {
  return `${origin}/#join=${encodeURIComponent(code)}`;
}

export function tournamentLink(origin: string, id: string): string {
  return `${origin}/#tournament=${encodeURIComponent(id)}`;
}

export class App {
  state: AppState = initialState();
  prefs: Prefs;
  route: Route;
  private conn: Connection;
  private listeners = new Set<() => void>();
  private autoPassTimer: ReturnType<typeof setTimeout> | null = null;
  private autoPassSeq: number | null = null;
  private pendingRoute: Route;
  private followed: string | null = null; // the tournament whose views the server pushes to us (one at a time)
  private silent = new Set<number>(); // request ids whose errors are not shown (background refreshes)
  private toTable = false; // the next snapshot is a table we were sent to: leave the tournament page

  /** The lobby's public lists: the rooms (searched by a player's name, a room id, an invite code) and
   * the tournaments (by name or id; a background list: errors, e.g. a server without them, not shown). */
  readonly lists = {
    rooms: this.publicList("rooms", "roomList", false),
    tournaments: this.publicList("tournaments", "tournamentList", true),
  };

  sound: Sound;

  constructor(private storage: Storage, private loc: Location) {
    this.prefs = this.loadPrefs();
    this.sound = new Sound(storage, typeof navigator !== "undefined" && !!navigator.webdriver);
    setLang(this.prefs.lang);
    this.state = { ...this.state, tables: this.loadTables() };
    this.route = parseRoute(loc.hash);
    this.pendingRoute = { ...this.route };
    if (typeof window !== "undefined") window.addEventListener("hashchange", () => { this.route = parseRoute(this.loc.hash); });
    this.conn = new Connection(wsUrl(loc), {
      onOpen: () => this.onOpen(),
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => this.onStatus(s),
    });
  }

  start(): void {
    this.conn.connect();
  }

  /** Counts changes of state or preferences: a view remembers the one it rendered. */
  version = 0;

  /** ``f`` runs on every later change, and once at once if anything changed since ``seen``: a view
   * subscribes after it rendered, and the socket may have opened in between. */
  subscribe(f: () => void, seen: number = this.version): () => void {
    this.listeners.add(f);
    if (this.version !== seen) f();
    return () => this.listeners.delete(f);
  }

  private emit(): void {
    this.version++;
    for (const f of this.listeners) f();
  }

  private set(s: AppState): void {
    this.state = s;
    this.emit();
  }

  // -- preferences ----------------------------------------------------------------------------

  private loadPrefs(): Prefs {
    let p: Partial<Prefs> = {};
    try {
      p = JSON.parse(this.storage.getItem(KEY_PREFS) ?? "{}");
    } catch {
      p = {};
    }
    const langs = typeof navigator !== "undefined" ? navigator.languages ?? [navigator.language] : [];
    return {
      lang: p.lang === "zh" || p.lang === "en" ? p.lang : defaultLang(langs),
      hint: p.hint ?? true,
      name: typeof p.name === "string" ? p.name : "",
      login: typeof p.login === "string" ? p.login : "",
      autoWin: p.autoWin === true,
      noCalls: p.noCalls === true,
      quickHands: QUICK_HANDS.includes(p.quickHands as 4) ? p.quickHands! : 4,
    };
  }

  private loadTables(): AppState["tables"] {
    try {
      const t = JSON.parse(this.storage.getItem(KEY_TABLES) ?? "{}");
      return t && typeof t === "object" && !Array.isArray(t) ? t : {};
    } catch {
      return {};
    }
  }

  private saveTables(): void {
    const entries = Object.entries(this.state.tables).slice(-8);
    this.storage.setItem(KEY_TABLES, JSON.stringify(Object.fromEntries(entries)));
  }

  setPrefs(p: Partial<Prefs>): void {
    this.prefs = { ...this.prefs, ...p };
    setLang(this.prefs.lang);
    this.storage.setItem(KEY_PREFS, JSON.stringify(this.prefs));
    this.syncHints();
    this.emit();
    this.scheduleAutoPass();
    this.scheduleAutoWin();
  }

  /** The room computes the wait hint only for players who want it: tell it when the switch differs. */
  private syncHints(): void {
    const you = this.state.you;
    if (!this.state.room || !you || you.hints === this.prefs.hint) return;
    if (this.send({ t: "hint", on: this.prefs.hint })) {
      this.set({ ...this.state, you: { ...you, hints: this.prefs.hint } });
    }
  }

  get token(): string | null {
    return this.storage.getItem(KEY_TOKEN);
  }

  // -- the connection -------------------------------------------------------------------------

  private onStatus(s: Status): void {
    this.set({ ...this.state, status: s, lastN: s === "open" ? 0 : this.state.lastN });
  }

  private onOpen(): void {
    const token = this.token;
    if (token) {
      this.set({ ...this.state, signingIn: true });
      this.conn.send({ t: "resume", token });
    } else if (this.prefs.name && !this.prefs.login) {
      this.signIn(this.prefs.name);
    }
  }

  private onMessage(msg: Msg): void {
    if (msg.t === "error" && typeof msg.re === "number" && this.silent.has(msg.re)) {
      this.silent.delete(msg.re);
      return;
    }
    if (typeof msg.re === "number") this.silent.delete(msg.re);
    const before = this.state;
    const s = reduce(before, msg, Date.now() / 1000);
    this.set(s);
    if (msg.t === "game" && s.room) for (const cue of cuesFor(before.game, msg.events, s.game)) this.sound.play(cue);
    switch (msg.t) {
      case "rooms":
      case "tournaments":
        this.lists[msg.t].answered(msg);
        break;
      case "tournament_delta": {
        // A change our view of it cannot take (one was missed): the whole view again.
        const v = before.tviews[msg.tournament];
        if (v && s.tviews[msg.tournament] === v) this.send({ t: "tournament", tournament: msg.tournament });
        break;
      }
      case "welcome":
        this.storage.setItem(KEY_TOKEN, msg.token);
        if (msg.name !== this.prefs.name || (msg.login ?? "") !== this.prefs.login) {
          this.setPrefs({ name: msg.name, login: msg.login ?? "" });
        }
        if (!msg.room) {
          this.followRoute();
          this.lists.rooms.refresh();
          // A restarted server has forgotten its quick-match queue: take our place in it again.
          if (!msg.queued && before.queued) this.quick(before.queued, before.quickHands ?? undefined);
        }
        // The server forgets who follows what when it restarts: ask again.
        if (this.route.tournament) this.openTournament(this.route.tournament);
        else if (this.followed) this.send({ t: "tournament", tournament: this.followed });
        this.lists.tournaments.refresh();
        break;
      case "error":
        if (typeof msg.code === "string" && msg.code.startsWith("action/") && this.state.room) {
          // Our answer was refused (the table moved on): the snapshot says what we may do now.
          this.send({ t: "snapshot" });
        }
        if (msg.code === "lobby/not_in_room" && this.state.room) {
          // The server has no room for us (it closed it while we looked at the ranking): the lobby.
          this.set({ ...this.state, room: null, you: null, game: null, clock: null, handResult: null, matchResult: null, confirmLeave: false, roomGone: false });
          this.lists.rooms.refresh();
        }
        if (msg.code === "auth/bad_token") {
          // The server forgot us (a new database): sign in again under the same name. A claimed
          // account whose session was revoked signs in with its password instead (the first screen).
          this.storage.removeItem(KEY_TOKEN);
          if (this.prefs.name && !this.prefs.login) this.signIn(this.prefs.name);
        }
        break;
      case "account":
        // Claimed: a lost token now means "sign in with the password", not "a new guest" (onOpen).
        if (msg.player === this.state.me?.player && (msg.login ?? "") !== this.prefs.login) this.setPrefs({ login: msg.login ?? "" });
        break;
      case "replaced":
        this.conn.stop();
        break;
      case "snapshot":
        this.syncHints();
        if (this.pendingRoute.join || this.pendingRoute.watch) this.clearRoute();
        if (this.toTable) {
          // Our tournament table opened (or the referee chose one to watch): show it.
          this.toTable = false;
          if (parseRoute(this.loc.hash).tournament) this.navigate("");
        }
        {
          // A tournament's table: follow the tournament too (its name, standings, notices).
          const link = this.state.room ? this.state.tables[this.state.room.id] : undefined;
          if (link && !this.state.tviews[link.tournament] && !this.route.tournament) {
            this.send({ t: "tournament", tournament: link.tournament });
            this.followed = link.tournament;
          }
        }
        break;
      case "table":
        this.toTable = true;
        this.saveTables();
        break;
      case "room":
        if (this.pendingRoute.join || this.pendingRoute.watch) this.clearRoute();
        break;
    }
    if (s.needSnapshot) {
      this.set({ ...this.state, needSnapshot: false });
      this.send({ t: "snapshot" });
    }
    this.scheduleAutoPass();
    this.scheduleAutoWin();
  }

  private followRoute(): void {
    const r = this.pendingRoute;
    if (r.join) {
      const code = r.join;
      this.send(/^r[0-9a-f]{8}$/.test(code) ? { t: "join", room: code } : { t: "join", code });
    } else if (r.watch) {
      const code = r.watch;
      this.send(/^r[0-9a-f]{8}$/.test(code) ? { t: "watch", room: code } : { t: "watch", code });
    }
  }

  private clearRoute(): void {
    this.pendingRoute = { replay: this.pendingRoute.replay };
    if (this.loc.hash.includes("join=") || this.loc.hash.includes("watch=")) {
      history.replaceState(null, "", this.loc.pathname + this.loc.search);
    }
  }

  send(msg: Command): boolean {
    return this.conn.send(msg);
  }

  reconnectNow(): void {
    this.set({ ...this.state, replaced: false });
    this.conn.connect();
  }

  /** Simulate a dropped network (used by tests through window.guobiao). */
  dropConnection(): void {
    this.conn.drop();
  }

  dismissError(): void {
    this.set({ ...this.state, error: null });
  }

  /** Go to a place in the client (#tournament=..., or "" for the lobby / the room you are in). */
  navigate(hash: string): void {
    const want = hash ? `#${hash.replace(/^#/, "")}` : "";
    if (this.loc.hash === want || (!want && (this.loc.hash === "" || this.loc.hash === "#"))) return;
    this.route = parseRoute(want);
    if (want) this.loc.hash = want;
    else {
      history.pushState(null, "", this.loc.pathname + this.loc.search);
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    }
  }

  // -- the lobby's public lists ---------------------------------------------------------------

  private publicList(t: "rooms" | "tournaments", key: "roomList" | "tournamentList", quiet: boolean): PublicList {
    return new PublicList({
      view: () => this.state[key],
      put: (l: ListView) => this.set({ ...this.state, [key]: l }),
      ask: (fields) => {
        if (quiet && !this.state.me) return null;
        void this.conn.request({ t, ...fields });
        if (quiet) this.silent.add(this.conn.lastId());
        return this.conn.lastId();
      },
    });
  }

  // -- tournaments ----------------------------------------------------------------------------

  /** Fetch a tournament's view; the server then pushes a fresh one after every change. */
  openTournament(id: string): void {
    if (!id) return;
    this.route = { ...this.route, tournament: id };
    // (the id goes in "tournament": a message's "id" is its request id, echoed as "re")
    if (!this.state.me) return;
    this.followed = id;
    void this.conn.request({ t: "tournament", tournament: id }).then((reply) => {
      if (reply.t === "error" && reply.code !== "client/disconnected" && reply.code !== "client/offline") {
        this.set({ ...this.state, tournamentErrors: { ...this.state.tournamentErrors, [id]: reply.code } });
      }
    });
  }

  async createTournament(config: Record<string, unknown>): Promise<Msg> {
    const reply = await this.conn.request({ t: "tournament_create", config });
    if (reply.t === "tournament" && reply.tournament && typeof reply.tournament.id === "string") {
      this.followed = reply.tournament.id;
      this.navigate(`tournament=${reply.tournament.id}`);
    }
    return reply;
  }

  /** One of Tournament.handle's commands; resolves with ``ok`` or the error (also shown as a toast). */
  tournamentCmd(id: string, cmd: Record<string, unknown>): Promise<Msg> {
    return this.conn.request({ t: "tournament_cmd", tournament: id, cmd });
  }

  /** The referee or organiser watches a table (the view's ``rooms`` give its invite code). */
  watchTable(tournament: string, table: string): void {
    const r = this.state.tviews[tournament]?.rooms?.[table];
    if (!r) return;
    if (this.state.room && this.state.room.id === r.room) {
      this.navigate("");
      return;
    }
    this.set({ ...this.state, tables: { ...this.state.tables, [r.room]: { tournament, table } } });
    this.saveTables();
    this.toTable = true;
    this.send(r.code ? { t: "watch", code: r.code } : { t: "watch", room: r.room });
  }

  /** To your table of a tournament: the room you are in, or back into it (its seat stays yours). */
  goToTable(tournament?: string, table?: string): void {
    const here = this.state.room ? this.state.tables[this.state.room.id] : undefined;
    if (this.state.room && (!tournament || (here && here.tournament === tournament))) {
      this.navigate("");
      return;
    }
    const room = Object.entries(this.state.tables).find(([, x]) => x.tournament === tournament && x.table === table)?.[0];
    if (!room || this.state.room) return;
    this.toTable = true;
    this.send({ t: "join", room });
  }

  /** Whether ``goToTable(tournament, table)`` knows where to go. */
  canGoToTable(tournament: string, table: string): boolean {
    const here = this.state.room ? this.state.tables[this.state.room.id] : undefined;
    if (here) return here.tournament === tournament;
    return !this.state.room && Object.values(this.state.tables).some((x) => x.tournament === tournament && x.table === table);
  }

  dismissNotices(): void {
    this.set({ ...this.state, notices: [] });
  }

  dismissNotice(key: string): void {
    this.set({ ...this.state, notices: this.state.notices.filter((n) => n.key !== key) });
  }

  // -- commands -------------------------------------------------------------------------------

  signIn(name: string): void {
    name = name.trim();
    this.prefs = { ...this.prefs, name, login: "" }; // a new guest
    this.storage.setItem(KEY_PREFS, JSON.stringify(this.prefs));
    this.set({ ...this.state, signingIn: true });
    this.send({ t: "guest", name });
  }

  /** Sign in with a claimed account's login name and password (a new session on this device). */
  logIn(login: string, password: string): void {
    this.storage.removeItem(KEY_TOKEN);
    this.set({ ...this.state, signingIn: true });
    this.send({ t: "login", login: login.trim(), password });
  }

  /** An account command (docs/protocol.md "Accounts"): the reply, errors included, for the form that
   * asked to show (not the toast). A deleted account forgets its token and name here. */
  async account(msg: Command): Promise<Msg> {
    const reply = this.conn.request(msg);
    this.silent.add(this.conn.lastId());
    const r = await reply;
    if (r.t === "deleted") {
      this.storage.removeItem(KEY_TOKEN);
      this.prefs = { ...this.prefs, name: "", login: "" };
      this.storage.setItem(KEY_PREFS, JSON.stringify(this.prefs));
      this.navigate("");
      this.set({ ...initialState(), status: this.state.status });
    }
    return r;
  }

  /** A different name is a different guest account: forget the token and sign in again. */
  rename(name: string): void {
    this.storage.removeItem(KEY_TOKEN);
    this.prefs = { ...this.prefs, name: name.trim() };
    this.storage.setItem(KEY_PREFS, JSON.stringify(this.prefs));
    this.set({ ...initialState(), status: this.state.status });
    this.conn.drop();
  }

  /** One page of the player's own finished matches (the lobby's list); errors are not shown. */
  async myMatches(page = 0): Promise<Msg> {
    const reply = this.conn.request({ t: "matches", page });
    this.silent.add(this.conn.lastId());
    return reply;
  }

  quick(type: string, hands: number = this.prefs.quickHands): void {
    this.send({ t: "quick", type, hands });
  }

  cancelQuick(): void {
    this.send({ t: "quick_cancel" });
    this.set({ ...this.state, queued: null });
  }

  create(config: Record<string, unknown>): void {
    this.send({ t: "create", config });
  }

  join(codeOrRoom: string): void {
    const v = codeOrRoom.trim();
    this.send(/^r[0-9a-f]{8}$/.test(v) ? { t: "join", room: v } : { t: "join", code: v });
  }

  watch(codeOrRoom: string): void {
    const v = codeOrRoom.trim();
    this.send(/^r[0-9a-f]{8}$/.test(v) ? { t: "watch", room: v } : { t: "watch", code: v });
  }

  sit(seat: number): void {
    this.send({ t: "sit", seat });
  }

  ready(ready: boolean): void {
    this.send({ t: "ready", ready });
  }

  startMatch(): void {
    this.send({ t: "start" });
  }

  addBot(seat?: number, level?: string): void {
    const cmd = seat === undefined ? { t: "add_bot" as const } : { t: "add_bot" as const, seat };
    this.send(level === undefined ? cmd : { ...cmd, level });
  }

  removeBot(seat: number): void {
    this.send({ t: "remove_bot", seat });
  }

  kick(player: string): void {
    this.send({ t: "kick", player });
  }

  leave(): void {
    if (this.state.roomGone) {
      // Nothing to tell the server: it closed the room already.
      this.set({ ...this.state, room: null, you: null, game: null, clock: null, handResult: null, matchResult: null, roomGone: false });
      this.lists.rooms.refresh();
      return;
    }
    this.send({ t: "leave" });
    if (this.state.confirmLeave) this.set({ ...this.state, confirmLeave: false });
  }

  /** Leaving a match in play asks first (the seat is played for you from then on). */
  askLeave(open = true): void {
    this.set({ ...this.state, confirmLeave: open && !!this.state.room });
  }

  rematch(): void {
    this.send({ t: "rematch" });
    this.set({ ...this.state, matchResult: null });
  }

  closeMatchResult(): void {
    this.set({ ...this.state, matchResult: null, handResult: null });
  }

  closeHandResult(): void {
    this.set({ ...this.state, handResult: null });
  }

  setSound(on: boolean): void {
    this.sound.set(on);
    this.emit();
  }

  setAuto(on: boolean): void {
    this.send({ t: "auto", on });
  }

  act(action: Action): void {
    const g = this.state.game;
    if (!g) return;
    const seq = actionSeq(g);
    this.send({ t: "act", action: { ...action, seq } });
    // Until the server answers, nothing more may be sent for this decision.
    this.set({ ...this.state, game: { ...g, legal: [], to_act: false } });
  }

  // -- claim windows that offer nothing but "pass" --------------------------------------------

  /** The room asks every other seat after every discard (docs/rooms.md "Claim windows never tell");
   * a seat with nothing to claim answers "pass" after the room's claim_min, never faster. */
  /** Whether a claim window is put to the player: something to claim, and not only calls they switched off. */
  wantsClaim(o: ReturnType<typeof options>): boolean {
    return hasClaim(o) && (o.win || !this.prefs.noCalls);
  }

  private autoWinSeq: number | null = null;

  /** The auto-win switch: a win offered (自摸, or on a discard) is declared after a short pause. */
  private scheduleAutoWin(): void {
    const g = this.state.game;
    if (!this.prefs.autoWin || !g || !options(g.legal).win) return;
    const seq = actionSeq(g);
    if (this.autoWinSeq === seq) return;
    this.autoWinSeq = seq;
    setTimeout(() => {
      const now = this.state.game;
      if (this.prefs.autoWin && now && actionSeq(now) === seq && options(now.legal).win) this.act({ a: "win" });
    }, 250);
  }

  private scheduleAutoPass(): void {
    const g = this.state.game;
    const onlyPass = g && g.phase === "claim" && g.to_act && !this.wantsClaim(options(g.legal)) && options(g.legal).pass;
    if (!onlyPass) {
      if (this.autoPassTimer) clearTimeout(this.autoPassTimer);
      this.autoPassTimer = null;
      this.autoPassSeq = null;
      return;
    }
    const seq = actionSeq(g!);
    if (this.autoPassSeq === seq) return;
    if (this.autoPassTimer) clearTimeout(this.autoPassTimer);
    this.autoPassSeq = seq;
    const min = Number(this.state.room?.config.claim_min ?? 1);
    const delay = Math.max(0, min * 1000) + 150 + Math.random() * 250;
    this.autoPassTimer = setTimeout(() => {
      this.autoPassTimer = null;
      const now = this.state.game;
      if (now && now.phase === "claim" && now.to_act && actionSeq(now) === seq && !this.wantsClaim(options(now.legal))) {
        this.act({ a: "pass" });
      }
    }, delay);
  }
}
