// Tournaments: the lobby's list and create form, the tournament page (#tournament=<id>) with the
// referee's panel, the notice banners shown anywhere, and the strip above a tournament table.

import { useEffect, useState } from "preact/hooks";
import { tournamentLink } from "../app";
import { STRINGS, errorText, lang, t } from "../i18n";
import type { Key } from "../i18n";
import type { Msg } from "../net";
import { AppState, displayName } from "../state";
import {
  CreateForm, POINT_LEVELS, SANCTION_KINDS, SEATINGS, SanctionRecord, SeatResult, SessionView, TableView,
  TournamentView, buildConfig, canCancel, competitorBot, canCheckIn, canRuleIntentional, canRegister, canStart, canUnregister, currentSession,
  datetimeLocal, findTable, formatStd, formatWhen, handInPlay, isOrganiser, isReferee, me, minutesUntil,
  myTable, openForSignUp, ownSanctions, pointsText, publicNotices, summaryNext,
} from "../tournament";
import { formatTiles } from "../tiles";
import { ListCard, useApp, useNow } from "./common";
import { DuplicateDeals, DuplicateStandings } from "./duplicate";
import { BotEntry, BotTags } from "./tbots";
import { ROOM_TYPES, typeName } from "./lobby";

/** A word whose key is built from a server value (a state, a kind): the value itself if unknown. */
const tk = (k: string) => (k in STRINGS ? t(k as Key) : k.replace(/^[a-zA-Z]+_/, ""));

/** A player's name for tournament pages: the server's name, else the id; null is a bot. */
export function pname(s: AppState, id: string | null | undefined): string {
  if (id === null || id === undefined) return t("bot");
  if ((id === "server" || id === "system") && !s.names[id]) return t("bySystem");
  return displayName(s, id, t("bot"), {}); // not the room's names: TournamentPage puts the tournament's in s.names
}

function when(sec: number | null | undefined, now: number): string {
  if (sec === null || sec === undefined) return "";
  return formatWhen(sec, now, lang());
}

function relative(sec: number, now: number): string {
  const m = minutesUntil(sec, now);
  return m >= 0 ? t("inMinutes", m) : t("minutesAgo", -m);
}

function stateTag(state: string) {
  return <span class={`tag tstate ${state}`} data-testid="t-state" data-state={state}>{tk(`tState_${state}`)}</span>;
}

function kindName(r: SanctionRecord): string {
  if (r.kind === "offence" && r.offence === "timeout") return lang() === "zh" ? "超时" : "Timeout";
  return tk(`kind_${r.kind}`);
}

// -- the lobby ----------------------------------------------------------------------------------

export function TournamentList({ s }: { s: AppState }) {
  const app = useApp();
  const now = useNow(15000);
  return (
    <ListCard ctl={app.lists.tournaments} list={s.tournamentList} empty={s.tournaments.length === 0}
      title={t("tournaments")} testid="tournaments" cls="tournaments" search="tournament_search"
      placeholder={t("searchTournaments")} noMatch={(q) => t("noTournamentsMatch", q)}
      none={<p class="muted">{t("noTournaments")}</p>}>
      <TournamentItems s={s} now={now} />
    </ListCard>
  );
}

const OVER = new Set(["finished", "cancelled"]);

/** Events still to come or in play; finished and cancelled ones folded away under a count. */
function TournamentItems({ s, now }: { s: AppState; now: number }) {
  const live = s.tournaments.filter((x) => !OVER.has(x.state));
  const over = s.tournaments.filter((x) => OVER.has(x.state));
  // Past the first page, or found by a search, finished ones are what was asked for: shown, and the
  // open ones are not "none" (they rank first, on earlier pages).
  const asked = s.tournamentList.page > 0 || !!s.tournamentList.shownQ;
  return (
    <>
      {live.length ? <TournamentRows items={live} now={now} /> : asked ? null : <p class="muted">{t("noTournaments")}</p>}
      {over.length ? (
        <details class="over-events" data-testid="over-events" open={asked && !live.length}>
          <summary>{t("tOverN", over.length)}</summary>
          <TournamentRows items={over} now={now} />
        </details>
      ) : null}
    </>
  );
}

function TournamentRows({ items, now }: { items: AppState["tournaments"]; now: number }) {
  return (
    <>
      {(
        <ul class="rooms tlist">
          {items.map((x) => {
            const next = summaryNext(x);
            return (
              <li key={x.id} data-tournament={x.id}>
                <a class="tname" href={`#tournament=${x.id}`}>{x.name}</a>
                {openForSignUp(x, now) ? <span class="tag signup" data-testid="signup-open">{t("signUpOpen")}</span> : stateTag(x.state)}
                <span class="muted small">{typeName(x.type)}</span>
                <span class="small">{t("tPlayersOf", x.players, x.max_players)}</span>
                <span class="small">{x.session ? t("tSessionNow", x.session) : next !== null ? t("tNext", when(next, now)) : t("tSessionsN", x.sessions)}</span>
                <span class="grow" />
                <a class="button" href={`#tournament=${x.id}`} data-action="open-tournament">{t("tOpen")}</a>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

function defaultForm(): CreateForm {
  const d = new Date(Date.now() + 15 * 60 * 1000);
  d.setSeconds(0, 0);
  return {
    name: "", type: "guobiao", sessions: 4, hands: 16, timeLimit: 0, timeUp: "void", seating: "swiss",
    scheduled: true, firstStart: datetimeLocal(d), gap: 120, referee: "", duplicate: false,
  };
}

export function CreateTournament({ s }: { s: AppState }) {
  const app = useApp();
  const [f, setF] = useState<CreateForm>(defaultForm);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (p: Partial<CreateForm>) => setF({ ...f, ...p });
  const num = (k: keyof CreateForm) => (e: Event) => {
    const v = parseInt((e.target as HTMLInputElement).value, 10);
    set({ [k]: Number.isFinite(v) ? v : 0 } as Partial<CreateForm>);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const r = buildConfig(f, s.me?.player ?? null, Math.floor(Date.now() / 1000));
    if ("error" in r) {
      setProblem(r.error === "name" ? t("tBadName") : r.error === "start" ? t("tBadStart") : r.error === "past" ? t("tPastStart") : t("tBadNumbers"));
      return;
    }
    setProblem(null);
    setBusy(true);
    const reply: Msg = await app.createTournament(r.config);
    setBusy(false);
    if (reply.t === "tournament") setF(defaultForm());
  };
  // Folded: most visitors never create one, and the open form pushed everything below it off a phone.
  return (
    <details class="card fold" data-testid="create-tournament-fold">
    <summary><h2>{t("createTournament")}</h2></summary>
    <form class="create create-tournament" onSubmit={submit} data-testid="create-tournament">
      <label class="wide">{t("tName")}
        <input name="t_name" value={f.name} maxLength={60} required onInput={(e) => set({ name: (e.target as HTMLInputElement).value })} />
      </label>
      <div class="grid2">
        <label>{t("roomType")}
          <select name="t_type" value={f.type} onChange={(e) => set({ type: (e.target as HTMLSelectElement).value })}>
            {ROOM_TYPES.map((x) => <option value={x}>{typeName(x)}</option>)}
          </select>
        </label>
        <label>{t("tSeating")}
          <select name="t_seating" value={f.seating} onChange={(e) => set({ seating: (e.target as HTMLSelectElement).value })}>
            {SEATINGS.map((x) => <option value={x}>{tk(`seating_${x}`)}</option>)}
          </select>
        </label>
        <label>{t("tSessions")}
          <input type="number" name="t_sessions" min={1} max={20} value={f.sessions} onInput={num("sessions")} />
        </label>
        <label>{t("tHands")}
          <input type="number" name="t_hands" min={1} max={16} value={f.hands} onInput={num("hands")} />
        </label>
        <label>{t("tTimeLimit")}
          <input type="number" name="t_time_limit" min={0} max={1440} value={f.timeLimit} onInput={num("timeLimit")} />
        </label>
        <label>{t("tTimeUp")}
          <select name="t_time_up" value={f.timeUp} disabled={f.timeLimit <= 0}
            onChange={(e) => set({ timeUp: (e.target as HTMLSelectElement).value as "void" | "finish" })}>
            <option value="void">{t("timeUp_void")}</option>
            <option value="finish">{t("timeUp_finish")}</option>
          </select>
        </label>
      </div>
      <label class="check">
        <input type="checkbox" name="t_duplicate" checked={f.duplicate} onChange={(e) => set({ duplicate: (e.target as HTMLInputElement).checked })} />
        {t("tDuplicate")}
      </label>
      <label class="check">
        <input type="checkbox" name="t_scheduled" checked={f.scheduled} onChange={(e) => set({ scheduled: (e.target as HTMLInputElement).checked })} />
        {t("tScheduled")}
      </label>
      {f.scheduled ? (
        <div class="grid2">
          <label>{t("tFirstStart")}
            <input type="datetime-local" name="t_start" value={f.firstStart} onInput={(e) => set({ firstStart: (e.target as HTMLInputElement).value })} />
          </label>
          <label>{t("tGap")}
            <input type="number" name="t_gap" min={0} max={10080} value={f.gap} onInput={num("gap")} />
          </label>
        </div>
      ) : <p class="muted small">{t("tManualHelp")}</p>}
      <label class="wide">{t("tReferee")}
        <input name="t_referee" value={f.referee} placeholder={t("tRefereeYou", s.me?.name ?? "")} autoComplete="off"
          onInput={(e) => set({ referee: (e.target as HTMLInputElement).value })} />
      </label>
      {problem ? <p class="problem" role="alert">{problem}</p> : null}
      <button type="submit" class="primary" data-action="create-tournament" disabled={busy}>{t("create")}</button>
    </form>
    </details>
  );
}

// -- the tournament page ------------------------------------------------------------------------

export function TournamentPage({ id, s }: { id: string; s: AppState }) {
  const app = useApp();
  const now = useNow(1000);
  useEffect(() => {
    if (s.me) app.openTournament(id);
  }, [id, s.me?.player]);
  const v = s.tviews[id];
  if (!v) {
    const problem = s.tournamentErrors[id];
    return (
      <div class="tournament-page" data-testid="tournament-page">
        <section class="card">{problem ? <p class="problem" data-testid="t-missing">{problem === "lobby/no_tournament" ? t("noSuchTournament") : errorText(problem, "")}</p> : <p class="muted">{t("tLoading")}</p>}
          <a class="button" href="#">{t("tBack")}</a></section>
      </div>
    );
  }
  s = { ...s, names: { ...s.names, ...v.names } }; // its names as it numbers them, whatever other pages said
  // While registration is open the players list (and the host's bot picker in it) is what the page is
  // about: right under the overview, not below the schedule.
  const signUp = v.state === "registering";
  return (
    <div class="tournament-page" data-testid="tournament-page" data-tournament={v.id}>
      <Overview s={s} v={v} now={now} />
      {signUp ? <Players s={s} v={v} now={now} /> : null}
      {isReferee(v) ? <RefereePanel s={s} v={v} /> : null}
      <Standings s={s} v={v} />
      <DuplicateStandings s={s} v={v} />
      {v.duplicate && !isReferee(v) ? <section class="card duplicate"><DuplicateDeals s={s} v={v} testid="dup-deals" /></section> : null}
      <NoticesCard s={s} v={v} now={now} />
      {v.you.registered || ownSanctions(v).length ? <MySanctions s={s} v={v} now={now} /> : null}
      <Schedule v={v} now={now} />
      {signUp ? null : <Players s={s} v={v} now={now} />}
      <Sessions s={s} v={v} />
    </div>
  );
}

function Overview({ s, v, now }: { s: AppState; v: TournamentView; now: number }) {
  const app = useApp();
  const [team, setTeam] = useState("");
  const [copied, setCopied] = useState(false);
  const c = v.config;
  const mine = myTable(v);
  const p = me(v);
  const cmd = (c: Record<string, unknown>) => app.tournamentCmd(v.id, c);
  const link = tournamentLink(location.origin, v.id);
  const next = v.sessions.find((x) => x.state === "pending");
  return (
    <section class="card overview">
      <div class="row between wrap">
        <h2 class="tname" data-testid="t-name">{c.name}</h2>
        {stateTag(v.state)}
      </div>
      <p class="muted small facts">
        {typeName(c.type)} · {t(c.sessions === 1 ? "tSessionHands" : "tSessionsHands", c.sessions, c.hands)} · {tk(`seating_${c.seating}`)}
        {c.time_limit ? ` · ${c.time_limit}′ (${tk(`timeUp_${c.time_up}`)})` : ""}
        {c.duplicate ? <> · <span class="tag" data-testid="t-duplicate">{t("dupTag")}</span></> : null}
      </p>
      <p class="small">
        {t("organiser")}: <b>{pname(s, v.organiser)}</b> · {t("referee")}: <b>{v.referee === null ? "–" : pname(s, v.referee)}</b>
        {isOrganiser(v) ? <span class="tag">{t("youAreOrganiser")}</span> : null}
        {isReferee(v) ? <span class="tag">{t("youAreReferee")}</span> : null}
      </p>
      {v.state === "cancelled" ? <p class="problem">{t("cancelledBecause", v.cancel_reason ?? "")}</p> : null}
      {mine && mine.state !== "finished" ? (
        <div class="my-table row wrap" data-testid="my-table">
          <span>{t("yourTable", mine.table, tk(`tblState_${mine.state}`))}</span>
          {app.canGoToTable(v.id, mine.table) ? (
            <button type="button" class="primary" data-action="go-to-table" onClick={() => app.goToTable(v.id, mine.table)}>
              {t("goToMyTable", mine.table)}
            </button>
          ) : null}
        </div>
      ) : null}
      <div class="row wrap actions-row">
        {canRegister(v, now) ? (
          <form class="row wrap" onSubmit={(e) => { e.preventDefault(); cmd(team.trim() ? { t: "register", team: team.trim() } : { t: "register" }); }}>
            <input name="team" placeholder={t("team")} value={team} maxLength={40} onInput={(e) => setTeam((e.target as HTMLInputElement).value)} />
            <button type="submit" class="primary" data-action="register">{t("register")}</button>
          </form>
        ) : null}
        {v.you.registered ? <span class="ok" data-testid="registered">✓ {t("registered")}{p?.team ? ` · ${p.team}` : ""}</span> : null}
        {canUnregister(v, now) ? <button type="button" data-action="unregister" onClick={() => cmd({ t: "unregister" })}>{t("unregister")}</button> : null}
        {canCheckIn(v, now) ? <button type="button" class="primary" data-action="checkin" onClick={() => cmd({ t: "checkin" })}>{t("checkIn")}</button> : null}
        {p?.checked_in ? <span class="ok" data-testid="checked-in">✓ {t("checkedIn")}</span> : null}
        {v.referee_offer === v.you.id && v.state !== "finished" && v.state !== "cancelled" ? (
          <button type="button" class="primary" data-action="accept-referee" onClick={() => cmd({ t: "accept_referee" })}>{t("acceptReferee")}</button>
        ) : null}
        {canStart(v) ? <button type="button" class="primary" data-action="start-session" onClick={() => cmd({ t: "start" })}>{t("startNow")}</button> : null}
        {canCancel(v) ? <button type="button" data-action="cancel-tournament" onClick={() => cmd({ t: "cancel" })}>{t("cancelTournament")}</button> : null}
      </div>
      {v.you.registered && !p?.checked_in && v.config.checkin_required && next && next.checkin_opens !== null && now < next.checkin_opens && v.session === null ? (
        <p class="muted small">{t("checkinOpensAt", when(next.checkin_opens, now))}</p>
      ) : null}
      {v.you.registered && !p?.checked_in && v.config.checkin_required && (v.state === "registering" || v.state === "running") ? <p class="muted small">{t("checkinHelp")}</p> : null}
      <div class="invite">
        <span class="small">{t("tShare")}</span>
        <div class="row">
          <input readOnly value={link} data-testid="tournament-link" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <button type="button" onClick={async () => {
            try { await navigator.clipboard.writeText(link); } catch { /* the field can be copied by hand */ }
            setCopied(true);
            setTimeout(() => setCopied(false), 2000);
          }}>{copied ? t("copied") : t("copy")}</button>
        </div>
      </div>
    </section>
  );
}

function Schedule({ v, now }: { v: TournamentView; now: number }) {
  return (
    <section class="card schedule">
      <h3>{t("schedule")}</h3>
      <ol class="sessions-list">
        {v.sessions.map((x) => (
          <li key={x.index} data-session={x.index} class={x.state}>
            <b>{t("sessionN", x.index)}</b>
            <span class={`tag sstate ${x.state}`}>{tk(`sState_${x.state}`)}</span>
            <span class="small">
              {x.start !== null ? t("startedAt", when(x.start, now)) : x.scheduled !== null ? `${when(x.scheduled, now)} · ${relative(x.scheduled, now)}` : t("byOrganiser")}
              {x.ended !== null ? ` · ${t("endedAt", when(x.ended, now))}` : ""}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Standings({ s, v }: { s: AppState; v: TournamentView }) {
  const teams = new Map(v.players.map((p) => [p.id, p.team]));
  const hasTeams = v.players.some((p) => p.team);
  return (
    <section class="card standings" data-testid="standings">
      <h3>{t("standings")}</h3>
      {v.standings.length === 0 ? <p class="muted">{t("noStandings")}</p> : (
        <div class="scroll">
          <table>
            <thead><tr><th>{t("rankCol")}</th><th>{t("nameCol")}</th>{hasTeams ? <th>{t("teamCol")}</th> : null}<th class="num">{t("stdCol")}</th><th class="num">{t("scoreCol")}</th><th class="num col-sessions">{t("sessionsCol")}</th></tr></thead>
            <tbody>
              {v.standings.map((r) => (
                <tr key={r.player} class={r.player === v.you.id ? "mine" : ""} data-player={r.player}>
                  <td>{r.place}</td>
                  <td class="name-cell"><span class="one-line" title={pname(s, r.player)}>{pname(s, r.player)}</span>{r.suspended ? <> <span class="tag warn" data-testid="standing-suspended">{t("suspendedTag")}</span></> : null}</td>
                  {hasTeams ? <td>{teams.get(r.player) ?? ""}</td> : null}
                  <td class="num" data-testid="std">{r.sessions ? formatStd(r.std12) : "–"}</td>
                  <td class="num">{r.sessions ? r.score : "–"}</td>
                  <td class="num col-sessions">{r.sessions}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {v.teams.length ? (
        <>
          <h3>{t("teamStandings")}</h3>
          <table class="teams">
            <thead><tr><th>{t("rankCol")}</th><th>{t("teamCol")}</th><th class="num">{t("stdCol")}</th><th class="num">{t("scoreCol")}</th></tr></thead>
            <tbody>
              {v.teams.map((r) => (
                <tr key={r.team}>
                  <td>{r.place}</td>
                  <td>{r.team} <span class="muted small">({r.players.map((p) => pname(s, p)).join(", ")})</span></td>
                  <td class="num">{formatStd(r.std12)}</td>
                  <td class="num">{r.score}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {v.suspended.length ? <p class="muted small">{t("suspendedTag")}: {v.suspended.map((p) => pname(s, p)).join(", ")}</p> : null}
    </section>
  );
}

function Players({ s, v, now }: { s: AppState; v: TournamentView; now: number }) {
  return (
    <section class="card players">
      <h3>{t("playersList")} <span class="muted small">({v.players.length}/{v.config.max_players})</span></h3>
      <BotEntry s={s} v={v} now={now} />
      {v.players.length === 0 ? <p class="muted">{t("noPlayers")}</p> : (
        <ul class="plist">
          {v.players.map((p) => (
            <li key={p.id} data-player={p.id} class={p.id === v.you.id ? "mine" : ""}>
              <span class="name">{pname(s, p.id)}</span>
              <BotTags v={v} id={p.id} now={now} />
              {p.team ? <span class="tag">{p.team}</span> : null}
              {p.status === "suspended" ? <span class="tag warn">{t("suspendedTag")}</span> : null}
              {p.warnings ? <span class="tag warn" data-testid="warnings" title={t("kind_warning")}>{t("warningsN", p.warnings)}</span> : null}
              {v.config.checkin_required && v.state !== "finished" && v.state !== "cancelled" && competitorBot(p.id) === null
                ? (p.checked_in ? <span class="ok small">✓ {t("checkedIn")}</span> : <span class="muted small">{t("notCheckedIn")}</span>)
                : null}
              {p.table ? <span class="small">{t("tableN", p.table)}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function SeatTags({ seat }: { seat: SeatResult }) {
  return (
    <>
      {seat.forfeit ? <span class="tag warn">{t("forfeitTag")}</span> : null}
      {seat.late ? <span class="tag warn">{t("lateTag", seat.late)}</span> : null}
      {seat.substituted ? <span class="tag">{t("substituteTag")}</span> : null}
      {!seat.bot && !seat.ranked ? <span class="tag">{t("unranked")}</span> : null}
      {seat.player !== null && competitorBot(seat.player) !== null ? <span class="tag" data-testid="competitor-bot">{t("bot")}</span> : null}
    </>
  );
}

function TableCard({ s, v, table }: { s: AppState; v: TournamentView; table: TableView }) {
  const inPlay = handInPlay(table, v.config.hands);
  return (
    <div class={`tcard ${table.state}`} data-table={table.table}>
      <div class="row wrap">
        <b>{t("tableN", table.table)}</b>
        <span class={`tag tblstate ${table.state}`}>{tk(`tblState_${table.state}`)}</span>
        {inPlay !== null ? <span class="small">{t("handInPlay", inPlay, v.config.hands)}</span> : table.hands.length ? <span class="small muted">{table.hands.length === 1 ? t("handPlayed") : t("handsPlayed", table.hands.length)}</span> : null}
        {table.time_up ? <span class="tag warn">{t("timeUpTag")}</span> : null}
      </div>
      <table class="seats-table">
        <thead><tr><th>{t("nameCol")}</th><th class="num">{t("scoreCol")}</th><th class="num">{t("stdCol")}</th></tr></thead>
        <tbody>
          {table.seats.map((x) => (
            <tr key={x.seat} class={x.player !== null && x.player === v.you.id ? "mine" : ""} data-seat={x.seat}>
              <td class="name-cell">{x.bot ? <span class="muted">{t("bot")}</span> : <span class="one-line" title={pname(s, x.player)}>{pname(s, x.player)}</span>} <SeatTags seat={x} /></td>
              <td class="num">{x.bot ? "" : x.score}</td>
              <td class="num">{x.ranked ? formatStd(x.std12) : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Sessions({ s, v }: { s: AppState; v: TournamentView }) {
  const started = v.sessions.filter((x) => x.tables.length || x.byes.length);
  if (!started.length) return null;
  return (
    <section class="card sessions wide-card">
      <h3>{t("sessionsAndTables")}</h3>
      {started.map((x: SessionView) => (
        <details key={x.index} open={x.state === "running" || x.index === started[started.length - 1].index}>
          <summary><b>{t("sessionN", x.index)}</b> <span class={`tag sstate ${x.state}`}>{tk(`sState_${x.state}`)}</span></summary>
          <div class="tcards">
            {x.tables.map((tb) => <TableCard key={tb.table} s={s} v={v} table={tb} />)}
          </div>
          {x.byes.length ? <p class="muted small">{t("byes", x.byes.map((p) => pname(s, p)).join(", "))}</p> : null}
        </details>
      ))}
    </section>
  );
}

function SanctionLine({ s, r, now, withPlayer = true }: { s: AppState; r: SanctionRecord; now: number; withPlayer?: boolean }) {
  const where = r.table ? (r.hand ? t("sanctionWhere", r.table, r.hand) : t("sanctionTable", r.table)) : "";
  return (
    <>
      <span class={`tag kind ${r.kind}`}>{kindName(r)}</span>
      {pointsText(r) ? <b class="pts">{pointsText(r)}</b> : null}
      {withPlayer && r.player ? <span class="who">{pname(s, r.player)}</span> : null}
      <span class="reason">{r.reason}</span>
      {where ? <span class="muted small">{where}</span> : null}
      <span class="muted small">{when(r.at, now)} · {r.by === "system" ? t("bySystem") : pname(s, r.by)}</span>
      {r.cancelled ? <span class="cancel-note small" data-testid="cancel-note">{t("cancelledSanction", r.cancelled.reason)}</span> : null}
    </>
  );
}

function NoticesCard({ s, v, now }: { s: AppState; v: TournamentView; now: number }) {
  const list = publicNotices(v);
  return (
    <section class="card notices" data-testid="notices">
      <h3>{t("notices")}</h3>
      {list.length === 0 ? <p class="muted">{t("noNotices")}</p> : (
        <ul class="slist">
          {list.map((r) => <li key={r.id} data-sanction={r.id} data-kind={r.kind}><SanctionLine s={s} r={r} now={now} /></li>)}
        </ul>
      )}
    </section>
  );
}

function MySanctions({ s, v, now }: { s: AppState; v: TournamentView; now: number }) {
  const list = ownSanctions(v);
  return (
    <section class="card my-sanctions" data-testid="my-sanctions">
      <h3>{t("yourSanctions")}</h3>
      {list.length === 0 ? <p class="muted">{t("noSanctions")}</p> : (
        <ul class="slist">
          {list.map((r) => (
            <li key={r.id} data-sanction={r.id} data-kind={r.kind} class={r.cancelled ? "cancelled" : ""}>
              <SanctionLine s={s} r={r} now={now} withPlayer={false} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

// -- the referee's panel ------------------------------------------------------------------------

function RefereePanel({ s, v }: { s: AppState; v: TournamentView }) {
  const now = useNow(5000);
  const cur = currentSession(v);
  return (
    <section class="card referee-panel wide-card" data-testid="referee-panel">
      <h2>{t("refereePanel")}</h2>
      <div class="ref-grid">
        <div>
          <h3>{t("refTables")}</h3>
          {!cur || !cur.tables.length ? <p class="muted">{t("noTables")}</p> : (
            <ul class="ref-tables">
              {cur.tables.map((tb) => <RefTable key={tb.table} s={s} v={v} table={tb} />)}
            </ul>
          )}
        </div>
        <SanctionForm s={s} v={v} />
      </div>
      {v.duplicate ? <DuplicateDeals s={s} v={v} testid="ref-dup-deals" /> : null}
      <h3>{t("allSanctions")}</h3>
      {v.sanctions.length === 0 ? <p class="muted">{t("noSanctions")}</p> : (
        <ul class="slist all" data-testid="sanction-list">
          {[...v.sanctions].sort((a, b) => b.id - a.id).map((r) => <RefSanction key={r.id} s={s} v={v} r={r} now={now} />)}
        </ul>
      )}
    </section>
  );
}

function RefTable({ s, v, table }: { s: AppState; v: TournamentView; table: TableView }) {
  const app = useApp();
  const inPlay = handInPlay(table, v.config.hands);
  const room = v.rooms?.[table.table];
  return (
    <li data-table={table.table}>
      <div class="row wrap">
        <b>{t("tableN", table.table)}</b>
        <span class={`tag tblstate ${table.state}`}>{tk(`tblState_${table.state}`)}</span>
        {inPlay !== null ? <span class="small">{t("handInPlay", inPlay, v.config.hands)}</span> : null}
        <span class="grow" />
        {room && table.state !== "finished" ? (
          <button type="button" data-action="watch-table" onClick={() => app.watchTable(v.id, table.table)}>{t("watchTable")}</button>
        ) : null}
      </div>
      <div class="small seats-line">
        {table.seats.map((x) => (
          <span key={x.seat} class="seat-chip">
            {x.bot ? t("bot") : pname(s, x.player)}
            {x.substituted ? ` (${t("substituteTag")})` : ""}
            {x.player !== null && competitorBot(x.player) !== null ? <> <span class="tag" data-testid="competitor-bot">{t("bot")}</span></> : null}
          </span>
        ))}
      </div>
    </li>
  );
}

function SanctionForm({ s, v }: { s: AppState; v: TournamentView }) {
  const app = useApp();
  const [player, setPlayer] = useState("");
  const [kind, setKind] = useState<string>("warning");
  const [points, setPoints] = useState(10);
  const [reason, setReason] = useState("");
  const [table, setTable] = useState("");
  const [hand, setHand] = useState("");
  const [pub, setPub] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const notice = kind === "notice";
  const tables = v.sessions.flatMap((x) => x.tables).filter((tb) => !player || tb.seats.some((x) => x.player === player));
  const chosen = player || (notice ? "" : v.players[0]?.id ?? "");
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) return;
    const cmd: Record<string, unknown> = { t: "sanction", kind, reason: reason.trim(), public: notice || pub };
    if (chosen) cmd.player = chosen;
    if (kind === "points") cmd.points = points;
    if (chosen && table) cmd.table = table;
    const h = parseInt(hand, 10);
    if (chosen && table && Number.isInteger(h) && h > 0) cmd.hand = h;
    setBusy(true);
    const reply = await app.tournamentCmd(v.id, cmd);
    setBusy(false);
    if (reply.t === "ok") {
      setReason("");
      setHand("");
      setDone(true);
      setTimeout(() => setDone(false), 2500);
    }
  };
  const selectedTable = findTable(v, table);
  return (
    <form class="sanction-form" data-testid="sanction-form" onSubmit={submit}>
      <h3>{t("issueSanction")}</h3>
      <div class="grid2">
        <label>{t("sKind")}
          <select name="s_kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            {SANCTION_KINDS.map((k) => <option value={k}>{tk(`kind_${k}`)}</option>)}
          </select>
        </label>
        <label>{t("sPlayer")}
          <select name="s_player" value={chosen} onChange={(e) => { setPlayer((e.target as HTMLSelectElement).value); setTable(""); }}>
            {notice ? <option value="">{t("sNobody")}</option> : null}
            {v.players.map((p) => <option value={p.id}>{pname(s, p.id)}{p.table ? ` · ${p.table}` : ""}</option>)}
          </select>
        </label>
        {kind === "points" ? (
          <label>{t("sPoints")}
            <select name="s_points" value={points} onChange={(e) => setPoints(parseInt((e.target as HTMLSelectElement).value, 10))}>
              {POINT_LEVELS.map((x) => <option value={x}>−{x}</option>)}
            </select>
          </label>
        ) : null}
        {chosen ? (
          <label>{t("sTable")}
            <select name="s_table" value={table} onChange={(e) => setTable((e.target as HTMLSelectElement).value)}>
              <option value="">{t("sAuto")}</option>
              {tables.map((tb) => <option value={tb.table}>{tb.table}</option>)}
            </select>
          </label>
        ) : null}
        {chosen && table ? (
          <label>{t("sHand")}
            <input type="number" name="s_hand" min={1} max={v.config.hands} value={hand}
              placeholder={selectedTable ? String(handInPlay(selectedTable, v.config.hands) ?? "") : ""}
              onInput={(e) => setHand((e.target as HTMLInputElement).value)} />
          </label>
        ) : null}
      </div>
      <label class="wide">{t("sReason")}
        <input name="s_reason" value={reason} maxLength={500} required onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
      </label>
      <label class="check">
        <input type="checkbox" name="s_public" checked={notice || pub} disabled={notice} onChange={(e) => setPub((e.target as HTMLInputElement).checked)} />
        {t("sPublic")}
      </label>
      <div class="row">
        <button type="submit" class="primary" data-action="issue-sanction" disabled={busy || !reason.trim() || (!chosen && !notice)}>{t("sIssue")}</button>
        {done ? <span class="ok" data-testid="sanction-issued">✓ {t("sIssued")}</span> : null}
      </div>
    </form>
  );
}

function RefSanction({ s, v, r, now }: { s: AppState; v: TournamentView; r: SanctionRecord; now: number }) {
  const app = useApp();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!reason.trim()) return;
    const reply = await app.tournamentCmd(v.id, { t: "cancel_sanction", sanction: r.id, reason: reason.trim() });
    if (reply.t === "ok") {
      setAsking(false);
      setReason("");
    }
  };
  return (
    <li data-sanction={r.id} data-kind={r.kind} class={r.cancelled ? "cancelled" : ""}>
      <SanctionLine s={s} r={r} now={now} />
      {r.public && r.kind !== "notice" ? <span class="tag">{t("sPublicTag")}</span> : null}
      {r.evidence ? (
        <div class="small evidence" data-testid="evidence">
          {t("evidenceHand", formatTiles(r.evidence.tiles), r.evidence.drawn === null ? "" : formatTiles([r.evidence.drawn]), r.evidence.from_ready)}
          {canRuleIntentional(v, r) ? (
            <button type="button" class="small-btn" data-action="rule-intentional"
              onClick={() => void app.tournamentCmd(v.id, { t: "intentional_false_win", sanction: r.id })}>{t("ruleIntentional")}</button>
          ) : null}
        </div>
      ) : null}
      {!r.cancelled && v.state !== "cancelled" ? (
        asking ? (
          <form class="row wrap cancel-form" onSubmit={submit}>
            <input name="cancel_reason" placeholder={t("cancelReason")} value={reason} maxLength={500} autoFocus
              onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
            <button type="submit" class="primary" data-action="confirm-cancel" disabled={!reason.trim()}>{t("confirm")}</button>
            <button type="button" onClick={() => setAsking(false)}>{t("close")}</button>
          </form>
        ) : (
          <button type="button" class="small-btn" data-action="cancel-sanction" onClick={() => setAsking(true)}>{t("cancelSanction")}</button>
        )
      ) : null}
    </li>
  );
}

// -- anywhere -----------------------------------------------------------------------------------

/** Banners for public notices (通报), your own sanctions, and a substitute taking your seat. */
export function NoticeBanners({ s }: { s: AppState }) {
  const app = useApp();
  const [all, setAll] = useState(false);
  if (!s.notices.length) return null;
  const now = Date.now() / 1000;
  const shown = all ? s.notices : s.notices.slice(-2); // the newest two; the rest behind "more"
  const hidden = s.notices.length - shown.length;
  return (
    <div class="notice-banners" role="status" aria-live="polite">
      {hidden > 0 || s.notices.length > 2 ? (
        <div class="notice-more row">
          {hidden > 0 ? <button type="button" class="link" data-action="more-notices" onClick={() => setAll(true)}>{t("moreNotices", hidden)}</button> : null}
          <span class="grow" />
          <button type="button" class="link" data-action="dismiss-all" onClick={() => { setAll(false); app.dismissNotices(); }}>{t("dismissAll")}</button>
        </div>
      ) : null}
      {shown.map((n) => {
        const name = n.tournament ? s.tviews[n.tournament]?.config.name ?? s.tournaments.find((x) => x.id === n.tournament)?.name : undefined;
        const title = n.kind === "public" ? t("noticeTitle") : n.kind === "mine" ? t("noticeMine")
          : n.kind === "cancelled" ? t("noticeCancelled") : n.kind === "substituted" ? t("noticeSubstituted")
            : t("cancelledBecause", n.reason ?? "");
        return (
          <div class={`notice-banner ${n.kind}`} key={n.key} data-testid="notice-banner" data-kind={n.kind}>
            <div class="grow">
              <b>{title}</b>{name ? <span class="muted-light"> · <a href={`#tournament=${n.tournament}`}>{name}</a></span> : null}
              {n.record ? <div class="line"><SanctionLine s={s} r={n.record} now={now} withPlayer={n.kind === "public"} /></div> : null}
            </div>
            <button type="button" class="small-btn" data-action="dismiss-notice" onClick={() => app.dismissNotice(n.key)}>{t("dismiss")}</button>
          </div>
        );
      })}
    </div>
  );
}

/** Above a tournament table (or its waiting room): which tournament, which table, a link back. */
export function TableStrip({ s }: { s: AppState }) {
  const link = s.room ? s.tables[s.room.id] : undefined;
  if (!s.room || (!link && !s.room.table)) return null;
  const v = link ? s.tviews[link.tournament] : undefined;
  return (
    <div class="table-strip" data-testid="table-strip">
      <span><b>{v ? v.config.name : ""}</b> {link ? t("tournamentTable", link.table) : null}</span>
      {link ? <a class="button small-btn" href={`#tournament=${link.tournament}`} data-action="view-tournament">{t("viewTournament")}</a> : null}
    </div>
  );
}

/** The waiting room of a tournament table before its match starts (no seats to choose, no ready). */
export function TableWaiting({ s }: { s: AppState }) {
  const app = useApp();
  const info = s.room!;
  const link = s.tables[info.id];
  const v = link ? s.tviews[link.tournament] : undefined;
  const table = v && link ? findTable(v, link.table) : null;
  return (
    <div class="room-lobby">
      <section class="card">
        <TableStrip s={s} />
        <h2>{link ? t("tournamentTable", link.table) : typeName(info.type)} · {t("handsN", info.config.hands)}</h2>
        <p class="muted">{t("tableWaiting")}</p>
        <ol class="seats">
          {info.seats.map((seat, i) => {
            const player = table?.seats[i]?.player ?? (seat && !seat.bot ? seat.id : null);
            const checked = player && v ? v.players.find((p) => p.id === player)?.checked_in : undefined;
            return (
              <li key={i} class={`seat${seat && s.you && seat.id === s.you.id ? " mine" : ""}`} data-seat={i}>
                <span class="name">{seat ? pname(s, seat.bot && seat.replaces ? seat.replaces : seat.id) : "·"}</span>
                {seat?.bot ? <span class="tag">{seat.substitute ? t("substituteTag") : t("bot")}</span> : null}
                {seat && !seat.bot && !seat.connected ? <span class="tag warn">{t("disconnected")}</span> : null}
                <span class="grow" />
                {checked === true ? <span class="ok small">✓ {t("checkedIn")}</span> : checked === false ? <span class="muted small">{t("notCheckedIn")}</span> : null}
              </li>
            );
          })}
        </ol>
        <div class="row wrap">
          {link ? <a class="button primary" href={`#tournament=${link.tournament}`}>{t("backToTournament")}</a> : null}
          {s.you?.seat === null ? <button type="button" onClick={() => app.leave()}>{t("leave")}</button> : null}
        </div>
      </section>
    </div>
  );
}
