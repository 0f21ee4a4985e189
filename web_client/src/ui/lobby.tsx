import { useEffect, useState } from "preact/hooks";
import { QUICK_HANDS, inviteLink } from "../app";
import { t } from "../i18n";
import { AppState, RoomInfo, displayName } from "../state";
import type { InviteView, MatchesMsg } from "../wire.gen";
import { ListCard, useApp, useNow, windName } from "./common";
import { CreateTournament, TournamentList } from "./tournament";

export const ROOM_TYPES = ["guobiao", "dazhong", "wufan"] as const;

export function typeName(type: string): string {
  return ROOM_TYPES.includes(type as any) ? t(`type_${type}` as "type_guobiao") : type;
}

/** How long we have waited for a quick match, how many wait with us, and when bots should fill the
 * table (the server's estimate, `fill`), with a bar that fills as that time comes. */
function QuickWait({ until, waiting, joined }: { until: number | null; waiting: number | null; joined: number | null }) {
  const [shown] = useState(() => Date.now() / 1000);
  const since = joined ?? shown; // when we joined the queue, as the server counts it (a reload keeps it)
  const now = useNow(500);
  const waited = Math.max(0, Math.floor(now - since));
  const left = until === null ? null : Math.max(0, Math.ceil(until - now));
  const done = left === null ? null : Math.min(1, (now - since) / Math.max(1, until! - since));
  return (
    <div class="quick-wait" data-testid="quick-wait" data-left={left ?? undefined} data-waiting={waiting ?? undefined}
      data-waited={waited}>
      <span class="muted">
        {left === null ? t("quickWaitHumans", waited) : left > 0 ? t("quickWait", waited, left) : t("quickFillSoon")}
        {waiting ? <> · <span data-testid="quick-count">{t("quickQueue", waiting)}</span></> : null}
      </span>
      {done !== null ? <span class="quick-bar" aria-hidden="true"><span style={{ width: `${(100 * done).toFixed(1)}%` }} /></span> : null}
    </div>
  );
}

/** What an invite link opens (GET /api/invite/<code>): the room's type, length, host and seats taken. */
function InvitePreview({ code }: { code: string }) {
  const [room, setRoom] = useState<InviteView | null | undefined>(undefined); // undefined: asking; null: no such open room
  useEffect(() => {
    let live = true;
    fetch(`/api/invite/${encodeURIComponent(code)}`)
      .then((r) => (r.status === 404 ? null : r.ok ? (r.json() as Promise<InviteView>) : undefined))
      .then((d) => live && setRoom(d))
      .catch(() => {});
    return () => { live = false; };
  }, [code]);
  if (room === undefined) return null;
  if (room === null) return <p class="invite-room gone" data-testid="invite-room" data-found="false">{t("inviteGone")}</p>;
  return (
    <p class="invite-room" data-testid="invite-room" data-found="true" data-type={room.type}>
      <b>{t("inviteRoom", typeName(room.type), t("handsN", room.hands), room.host ?? "?", room.seated, room.seats)}</b>
      {room.phase !== "lobby" ? <> · {t("inviteInPlay")}</> : null}
    </p>
  );
}

export function NameForm({ s }: { s: AppState }) {
  const app = useApp();
  const [name, setName] = useState(app.prefs.name);
  const busy = s.signingIn || s.status !== "open";
  return (
    <form
      class="card name-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) app.signIn(name);
      }}
    >
      {app.route.join ? (
        <div class="invite-note">
          <p data-testid="invite-note">{t("inviteJoin", app.route.join)}</p>
          <InvitePreview code={app.route.join} />
        </div>
      ) : app.route.watch ? (
        <div class="invite-note">
          <p data-testid="invite-note" data-watch="true">{t("inviteWatch")}</p>
          {/^r[0-9a-f]{8}$/.test(app.route.watch) ? null : <InvitePreview code={app.route.watch} />}
        </div>
      ) : null}
      <label>
        {t("yourName")}
        <input
          name="name" value={name} maxLength={20} autoFocus autoComplete="nickname"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit" class="primary" disabled={busy || !name.trim()}>{t("enter")}</button>
      {s.status === "closed" ? <p class="muted" data-testid="server-wait">{t("waitingServer")}</p> : null}
    </form>
  );
}

/** The first screen's other way in: a claimed account's login name and password. */
export function LoginForm({ s }: { s: AppState }) {
  const app = useApp();
  const [login, setLogin] = useState(app.prefs.login);
  const [password, setPassword] = useState("");
  const busy = s.signingIn || s.status !== "open";
  return (
    <form
      class="card login-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (login.trim() && password) app.logIn(login, password);
      }}
    >
      <p class="muted">{t("haveAccount")}</p>
      <label>
        {t("loginName")}
        <input name="login" value={login} maxLength={32} autoComplete="username"
          onInput={(e) => setLogin((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        {t("password")}
        <input name="password" type="password" value={password} maxLength={128} autoComplete="current-password"
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={busy || !login.trim() || !password}>{t("signIn")}</button>
    </form>
  );
}

export function Lobby({ s }: { s: AppState }) {
  const app = useApp();
  useEffect(() => {
    const id = setInterval(() => {
      app.lists.rooms.refresh();
      app.lists.tournaments.refresh();
    }, 5000);
    return () => clearInterval(id);
  }, [app]);
  return (
    <div class="lobby">
      <section class="card">
        <h2>{t("quickMatch")}</h2>
        <p class="muted">{t("quickHelp")}</p>
        {s.queued ? (
          <div class="queued">
            <span class="queued-what">
              <span class="spinner" />
              <span data-testid="queued-what">{t("queued", typeName(s.queued))}{s.quickHands ? ` · ${t("handsN", s.quickHands)}` : ""}</span>
            </span>
            <QuickWait until={s.quickUntil} waiting={s.quickWaiting} joined={s.quickSince} />
            <button type="button" onClick={() => app.cancelQuick()}>{t("cancel")}</button>
          </div>
        ) : (
          <>
            <div class="quick-hands">
              <span class="muted">{t("matchLength")}</span>
              <span class="segs" role="radiogroup" aria-label={t("matchLength")}>
                {QUICK_HANDS.map((h) => (
                  <button type="button" role="radio" aria-checked={app.prefs.quickHands === h} data-quick-hands={h}
                    class={`seg${app.prefs.quickHands === h ? " on" : ""}`} onClick={() => app.setPrefs({ quickHands: h })}>
                    {t("handsN", h)}
                  </button>
                ))}
              </span>
            </div>
            <div class="row wrap">
              {ROOM_TYPES.map((type) => (
                <button type="button" class="primary" data-quick={type} onClick={() => app.quick(type)}>
                  {typeName(type)}
                </button>
              ))}
            </div>
          </>
        )}
      </section>
      <TournamentList s={s} />
      {/* Above the forms: on a phone they would push it three screens down. */}
      <section class="card" data-testid="recent">
        <h2>{t("recentMatches")}</h2>
        <RecentMatches player={s.me!.player} />
        <details class="fold" data-testid="replay-by-id">
          <summary>{t("openReplay")}</summary>
          <ReplayForm />
        </details>
      </section>
      <CreateRoom externalBots={s.bots.length > 0} />
      <section class="card">
        <h2>{t("joinByCode")}</h2>
        <JoinForm />
      </section>
      <PublicRooms s={s} />
      <CreateTournament s={s} />
    </div>
  );
}

/** The public rooms, a page at a time, searchable by a seated player's name, a room id or an invite
 * code (server/listing.py); the search and the page stay while the lobby refreshes the list. */
function PublicRooms({ s }: { s: AppState }) {
  const app = useApp();
  return (
    <ListCard ctl={app.lists.rooms} list={s.roomList} empty={s.rooms.length === 0} title={t("publicRooms")}
      testid="public-rooms" search="room_search" placeholder={t("searchRooms")} noMatch={(q) => t("noRoomsMatch", q)}
      none={<p class="muted" data-testid="no-rooms">{t("noRooms")}</p>}>
      <ul class="rooms">
        {s.rooms.map((r) => {
          const filled = r.seats.filter((x) => x !== null).length;
          return (
            <li key={r.room} data-room={r.room}>
              <span class="room-type">{typeName(r.type)}</span>
              <span>{t("handsN", r.hands)}</span>
              <span>{t("players", filled)}</span>
              <span class="muted">{r.phase === "lobby" ? t("inLobby") : t("inPlay")}</span>
              <span class="names">{r.seats.map((x) => (x ? displayName(s, x.id, t("bot"), r.names) : "·")).join(" / ")}</span>
              <span class="grow" />
              <span class="room-actions">{/* wrapped together on a phone, not Watch alone on a line */}
                {r.phase === "lobby" && filled < 4 ? (
                  <button type="button" data-action="join-room" onClick={() => app.join(r.room)}>{t("join")}</button>
                ) : null}
                <button type="button" data-action="watch-room" onClick={() => app.watch(r.room)}>{t("watch")}</button>
              </span>
            </li>
          );
        })}
      </ul>
    </ListCard>
  );
}

/** The player's last finished matches (the ``matches`` command, newest first), each opening its replay. */
function RecentMatches({ player }: { player: string }) {
  const app = useApp();
  const [data, setData] = useState<MatchesMsg | null>(null);
  useEffect(() => {
    let live = true;
    app.myMatches(0).then((r) => { if (live && r.t === "matches") setData(r as MatchesMsg); }).catch(() => {});
    return () => { live = false; };
  }, [player]);
  if (!data) return null;
  const items = data.items.slice(0, RECENT);
  if (!items.length) return <p class="muted" data-testid="no-matches">{t("noMatchesYet")}</p>;
  return (
    <ul class="recent">
      {items.map((m) => (
        <li key={m.id} data-match={m.id}>
          <a href={`#replay=${m.id}`} data-replay={m.id} class="recent-link">
            <span class="info">
              <span class="room-type">{typeName(m.type)}</span>
              <span>{t("place", m.place)}{m.abandoned ? ` (${t("abandoned")})` : ""}</span>
              <span>{t("matchScore", m.points)}</span>
              {m.hands ? <span class="muted">{t("handsN", m.hands)}</span> : null}
              <span class="muted with">{t("matchWith", [...m.others, ...(m.bots ? [t("botsN", m.bots)] : [])].join(", "))}</span>
              <small class="muted when">{new Date(m.finished_at * 1000).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })}</small>
            </span>
            <span class="go">{t("replay")} ›</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

const RECENT = 5; // matches listed in the lobby; the profile pages through all of them

function JoinForm() {
  const app = useApp();
  const [code, setCode] = useState("");
  return (
    <form class="row wrap" onSubmit={(e) => { e.preventDefault(); if (code.trim()) app.join(code); }}>
      <input
        name="code" placeholder={t("code")} value={code} autoComplete="off" class="code-input"
        onInput={(e) => setCode((e.target as HTMLInputElement).value.toUpperCase())}
      />
      <button type="submit" class="primary" disabled={!code.trim()}>{t("join")}</button>
      <button type="button" disabled={!code.trim()} onClick={() => app.watch(code)}>{t("watch")}</button>
    </form>
  );
}

function ReplayForm() {
  const [id, setId] = useState("");
  return (
    <form class="row wrap" onSubmit={(e) => { e.preventDefault(); if (id.trim()) location.hash = `replay=${id.trim()}`; }}>
      <input name="match" placeholder={t("matchId")} value={id} inputMode="numeric"
        onInput={(e) => setId((e.target as HTMLInputElement).value.replace(/\D/g, ""))} />
      <button type="submit" disabled={!id.trim()}>{t("open")}</button>
    </form>
  );
}

function CreateRoom({ externalBots }: { externalBots: boolean }) {
  const app = useApp();
  const [type, setType] = useState<string>("guobiao");
  const [hands, setHands] = useState(4);
  const [priv, setPriv] = useState(true);
  const [turn, setTurn] = useState(15);
  const [claim, setClaim] = useState(8);
  const [bank, setBank] = useState(60);
  const [bots, setBots] = useState(true);
  const [spect, setSpect] = useState(true);
  const [ranked, setRanked] = useState(false);
  const [flowers, setFlowers] = useState(true);
  const num = (f: (n: number) => void) => (e: Event) => {
    const v = parseInt((e.target as HTMLInputElement).value, 10);
    if (Number.isFinite(v)) f(v);
  };
  return (
    <form
      class="card create"
      onSubmit={(e) => {
        e.preventDefault();
        app.create({
          type, hands, private: priv, turn_time: turn, first_turn_time: Math.max(turn, 30), claim_time: claim,
          bank, bots, spectators: spect, ranked, flowers,
        });
      }}
    >
      <h2>{t("createRoom")}</h2>
      <fieldset class="types">
        <legend>{t("roomType")}</legend>
        {ROOM_TYPES.map((x) => (
          <label class={`type-choice${type === x ? " on" : ""}`}>
            <input type="radio" name="type" value={x} checked={type === x} onChange={() => setType(x)} />
            <b>{typeName(x)}</b>
            <small>{t(`typeHelp_${x}` as "typeHelp_guobiao")}</small>
          </label>
        ))}
      </fieldset>
      <div class="grid2">
        <label>{t("hands")}
          <select name="hands" value={hands} onChange={num(setHands)}>
            {[4, 8, 16].map((h) => <option value={h}>{t("handsN", h)}</option>)}
          </select>
        </label>
      </div>
      {/* The timers are folded (their values in the summary): on a phone they would cost a screen. */}
      <details class="fold timers" data-testid="timer-fold">
        <summary>{t("timeLimits", turn, claim, bank)}</summary>
        <div class="grid2">
          <label>{t("turnTime")}
            <input type="number" name="turn_time" min={5} max={120} value={turn} onChange={num(setTurn)} />
          </label>
          <label>{t("claimTime")}
            <input type="number" name="claim_time" min={2} max={60} value={claim} onChange={num(setClaim)} />
          </label>
          <label>{t("bankTime")}
            <input type="number" name="bank" min={0} max={600} value={bank} onChange={num(setBank)} />
          </label>
        </div>
      </details>
      <label class="check"><input type="checkbox" name="private" checked={priv} onChange={(e) => setPriv((e.target as HTMLInputElement).checked)} />{t("private")}</label>
      <label class="check"><input type="checkbox" name="bots" checked={bots} onChange={(e) => setBots((e.target as HTMLInputElement).checked)} />{t("allowBots")}</label>
      <label class="check"><input type="checkbox" name="spectators" checked={spect} onChange={(e) => setSpect((e.target as HTMLInputElement).checked)} />{t("allowSpectators")}</label>
      <label class="check" title={t("rankedHelp")}><input type="checkbox" name="ranked" checked={ranked} onChange={(e) => setRanked((e.target as HTMLInputElement).checked)} />{t("ranked")}</label>
      {externalBots ? (  // the contest format (136 tiles) is for the server's external bots (docs/bots.md)
        <label class="check"><input type="checkbox" name="flowers" checked={flowers} onChange={(e) => setFlowers((e.target as HTMLInputElement).checked)} />{t("flowersOption")}</label>
      ) : null}
      <button type="submit" class="primary" data-action="create">{t("create")}</button>
    </form>
  );
}

export function InviteBox({ info }: { info: RoomInfo }) {
  const [copied, setCopied] = useState(false);
  if (!info.invite) return null;
  const link = inviteLink(location.origin, info.invite);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      const el = document.getElementById("invite-link") as HTMLInputElement | null;
      el?.select();
      document.execCommand?.("copy");
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <div class="invite">
      <span>{t("code")}: <b class="code" data-testid="invite-code">{info.invite.slice(0, 4)}-{info.invite.slice(4)}</b></span>
      <div class="row">
        <input id="invite-link" readOnly value={link} data-testid="invite-link" onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>{copied ? t("copied") : t("copy")}</button>
      </div>
    </div>
  );
}

export function RoomLobby({ s }: { s: AppState }) {
  const app = useApp();
  const info = s.room!;
  const you = s.you;
  const isHost = !!you && info.host === you.id;
  const mySeat = you?.seat ?? null;
  const me = mySeat !== null ? info.seats[mySeat] : null;
  const filled = info.seats.every((x) => x !== null);
  return (
    <div class="room-lobby">
      <section class="card">
        <div class="row between wrap">
          <h2>{typeName(info.type)} · {t("handsN", info.config.hands)}</h2>
          <button type="button" onClick={() => app.leave()} data-action="leave">{t("leave")}</button>
        </div>
        <p class="muted">{t(`typeHelp_${info.type}` as "typeHelp_guobiao")}</p>
        <InviteBox info={info} />
      </section>
      <section class="card">
        <ol class="seats">
          {info.seats.map((seat, i) => (
            <li key={i} class={`seat${seat && you && seat.id === you.id ? " mine" : ""}`} data-seat={i}>
              <span class="wind">{windName(i)}</span>
              {seat ? (
                <>
                  <span class="name">{displayName(s, seat.id, t("bot"))}</span>
                  {seat.bot ? <span class="tag">{t("bot")}</span> : null}
                  {seat.bot && s.bots.includes(seat.bot) ? <span class="tag" data-testid="external-bot">{seat.bot}</span> : null}
                  {seat.id === info.host ? <span class="tag">{t("host")}</span> : null}
                  {you && seat.id === you.id ? <span class="tag">{t("you")}</span> : null}
                  {!seat.connected ? <span class="tag warn">{t("disconnected")}</span> : null}
                  <span class="grow" />
                  {seat.ready && !seat.bot ? <span class="ok">✓ {t("isReady")}</span> : null}
                  {isHost && seat.faults && (seat.faults.late || seat.faults.bad) ? (
                    <span class="tag warn" title={t("botFaultsHelp")}>{t("botFaults", (seat.faults.late ?? 0) + (seat.faults.bad ?? 0))}</span>
                  ) : null}
                  {isHost && seat.bot ? <button type="button" onClick={() => app.removeBot(i)}>{t("removeBot")}</button> : null}
                  {isHost && !info.quick && !seat.bot && you && seat.id !== you.id ? <button type="button" onClick={() => app.kick(seat.id)}>{t("kick")}</button> : null}
                </>
              ) : (
                <>
                  <span class="muted">{t("empty")}</span>
                  <span class="grow" />
                  {you ? <button type="button" onClick={() => app.sit(i)}>{t("sitHere")}</button> : null}
                  {isHost && info.config.bots ? <button type="button" data-action="add-bot" onClick={() => app.addBot(i)}>{t("addBot")}</button> : null}
                  {isHost && info.config.bots ? s.bots.map((b) => (
                    <button type="button" data-action="add-external-bot" onClick={() => app.addBot(i, b)}>{t("addBotNamed", b)}</button>
                  )) : null}
                </>
              )}
            </li>
          ))}
        </ol>
        {info.spectators ? <p class="muted">{t("spectators")}: {info.spectators}</p> : null}
        <div class="row wrap">
          {me ? (
            <button type="button" class={me.ready ? "" : "primary"} data-action="ready" onClick={() => app.ready(!me.ready)}>
              {me.ready ? t("notReady") : t("ready")}
            </button>
          ) : null}
          {isHost ? <button type="button" class="primary" data-action="start" disabled={!filled} onClick={() => app.startMatch()}>{t("start")}</button> : null}
        </div>
        <p class="muted">{t("waitingStart")}</p>
      </section>
    </div>
  );
}
