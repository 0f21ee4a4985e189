import { useEffect, useState } from "preact/hooks";
import { parseRoute } from "../app";
import { errorText, t } from "../i18n";
import type { AppState } from "../state";
import { useApp, useAppState } from "./common";
import { AccountPage } from "./account";
import { Lobby, LoginForm, NameForm, RoomLobby } from "./lobby";
import { ProfilePage } from "./profile";
import { Replay } from "./replay";
import { MatchResultView } from "./results";
import { Table } from "./table";
import { NoticeBanners, TableWaiting, TournamentPage } from "./tournament";

function Header({ s }: { s: AppState }) {
  const app = useApp();
  // "ready": connected, nobody signed in yet (the first screen): nothing to warn about. "starting": the
  // first screen before the socket opens: a grey dot, no words (the form says it if the server is away).
  const status = s.replaced ? "stopped" : s.status === "open" && s.me ? "online" : s.status === "open" ? "ready"
    : !s.me && !app.token ? "starting" : s.status === "connecting" ? "connecting" : "offline";
  return (
    <header class="top">
      <a class="brand" href="#" data-testid="brand" onClick={(e) => {
        e.preventDefault();
        // In a room the logo offers to leave it (with the question); elsewhere it goes to the lobby.
        if (s.room) app.askLeave();
        else location.hash = "";
      }}>
        <span class="logo">中</span><span class="title">{t("title")}</span>
      </a>
      <span class="grow" />
      <span class={`conn ${status}`} data-testid="conn" data-state={status} title={status}>
        <span class="dot" />
        <span class="label">
          {status === "starting" ? "" : status === "online" || status === "ready" ? t("connected") : status === "connecting" ? t("connecting") : status === "offline" ? t("reconnecting") : t("offline")}
        </span>
      </span>
      <label class="check small hint-toggle" title={t("hintOn")}>
        <input type="checkbox" checked={app.prefs.hint} data-testid="hint-toggle"
          onChange={(e) => app.setPrefs({ hint: (e.target as HTMLInputElement).checked })} />
        {t("hint")}
      </label>
      <button type="button" class="lang" data-testid="lang" onClick={() => app.setPrefs({ lang: app.prefs.lang === "zh" ? "en" : "zh" })}>
        {t("language")}
      </button>
      {s.me ? <a class="me" href="#account" title={`${t("account")} · ${s.me.player}`} data-testid="me">{s.me.name}</a> : null}
    </header>
  );
}

function Banner({ s }: { s: AppState }) {
  const app = useApp();
  if (s.replaced) {
    return (
      <div class="banner warn">
        {t("replaced")} <button type="button" onClick={() => app.reconnectNow()}>{t("reconnectNow")}</button>
      </div>
    );
  }
  if (s.status !== "open" && s.me) {
    return <div class="banner warn" data-testid="reconnecting">{t("reconnecting")}</div>;
  }
  return null;
}

function ErrorToast({ s }: { s: AppState }) {
  const app = useApp();
  useEffect(() => {
    if (!s.error) return;
    const id = setTimeout(() => app.dismissError(), 5000);
    return () => clearTimeout(id);
  }, [s.error?.at]);
  if (!s.error) return null;
  return (
    <div class="toast" role="alert" data-testid="error" data-code={s.error.code} onClick={() => app.dismissError()}>
      {t("error", errorText(s.error.code, s.error.message))}
    </div>
  );
}

/** "Leave?" In a match a seated player's seat goes on without them (rooms.md "leave"); say how. */
function LeaveConfirm({ s }: { s: AppState }) {
  const app = useApp();
  const seated = s.you?.seat !== null && s.you?.seat !== undefined;
  const playing = s.room!.phase === "playing" && !s.matchResult;
  const body = !seated || !playing ? null : s.room!.table ? t("leaveTableBody") : t("leaveMatchBody");
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") { e.preventDefault(); app.askLeave(false); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  return (
    <div class="overlay confirm" role="dialog" data-testid="leave-confirm">
      <div class="card">
        <h2>{seated && playing ? t("leaveMatchTitle") : t("leaveRoomTitle")}</h2>
        {body ? <p>{body}</p> : null}
        <div class="row wrap">
          <button type="button" class="danger" data-action="leave-confirm" onClick={() => app.leave()}>{t("leave")}</button>
          <button type="button" data-action="leave-cancel" onClick={() => app.askLeave(false)}>{t("cancel")}</button>
        </div>
      </div>
    </div>
  );
}

export function Root() {
  const s = useAppState();
  const app = useApp();
  const [route, setRoute] = useState(parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  useEffect(() => {
    document.documentElement.lang = app.prefs.lang === "zh" ? "zh-CN" : "en";
  });
  let body;
  let atTable = false; // the table fills the viewport (style.css "the table fits the screen")
  if (route.replay) body = <Replay id={route.replay} hand={route.hand} s={s} />;
  else if (route.player) body = <ProfilePage id={route.player} />;
  else if (!s.me) body = app.token && s.status !== "stopped" && !s.error ? <p class="muted center-text">{t("connecting")}</p> : <><NameForm s={s} /><LoginForm s={s} /></>;
  else if (route.account) body = <AccountPage s={s} />;
  else if (route.tournament) body = <TournamentPage id={route.tournament} s={s} />;
  else if (!s.room) body = <Lobby s={s} />;
  else if (s.game && (s.room.phase === "playing" || s.matchResult)) {
    body = <Table s={s} />;
    atTable = true;
  }
  else if (s.room.table) body = <TableWaiting s={s} />;
  else body = <>{s.matchResult ? <MatchResultView s={s} /> : null}<RoomLobby s={s} /></>;
  return (
    <div class={`app lang-${app.prefs.lang}${atTable ? " at-table" : ""}`}>
      <Header s={s} />
      <Banner s={s} />
      <NoticeBanners s={s} />
      <main>{body}</main>
      {s.confirmLeave && s.room ? <LeaveConfirm s={s} /> : null}
      <ErrorToast s={s} />
    </div>
  );
}
