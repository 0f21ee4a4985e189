// #account: claim the account (login name + password), change the password, the signed-in devices
// with sign-out, hide the match history, delete the account (docs/protocol.md "Accounts").

import { useEffect, useState } from "preact/hooks";
import { errorText, lang, t } from "../i18n";
import type { Msg } from "../net";
import type { AppState } from "../state";
import type { AccountMsg, SessionRow } from "../wire.gen";
import { useApp } from "./common";

function when(s: number): string {
  return new Date(s * 1000).toLocaleString(lang() === "zh" ? "zh-CN" : "en", { dateStyle: "short", timeStyle: "short" });
}

/** A short device description from a user agent: the browser and the system. */
function device(agent: string | null): string {
  if (!agent) return "—";
  const browser = /(Firefox|Edg|OPR|Chrome|Chromium|Safari)\/[\d.]+/.exec(agent)?.[1] ?? agent.slice(0, 30);
  const system = /(Android|iPhone|iPad|Windows|Mac OS X|Linux)/.exec(agent)?.[1] ?? "";
  return system ? `${browser} · ${system}` : browser;
}

function Problem({ r }: { r: Msg | null }) {
  if (!r || r.t !== "error") return null;
  return <p class="form-error" role="alert" data-code={r.code}>{errorText(r.code, r.message)}</p>;
}

export function AccountPage({ s }: { s: AppState }) {
  const app = useApp();
  const me = s.me!;
  const [info, setInfo] = useState<AccountMsg | null>(null);
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [result, setResult] = useState<Record<string, Msg | null>>({});
  const [confirming, setConfirming] = useState(false);
  const done = (key: string, r: Msg) => {
    setResult((x) => ({ ...x, [key]: r }));
    if (r.t === "account") setInfo(r);
    if (r.t === "sessions") setSessions(r.sessions);
  };
  useEffect(() => {
    void app.account({ t: "account" }).then((r) => done("info", r));
    void app.account({ t: "sessions" }).then((r) => done("sessions", r));
  }, [me.player]);
  const field = (form: HTMLFormElement, name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
  const claimed = info ? info.login : me.login;
  return (
    <div class="account-page" data-testid="account">
      <section class="card">
        <div class="row between">
          <h2>{t("account")}</h2>
          <button type="button" class="link" onClick={() => app.navigate("")}>{t("back")}</button>
        </div>
        <p><strong data-testid="account-name">{me.name}</strong> <span class="muted" data-testid="account-id">{me.player}</span></p>
        {claimed ? <p data-testid="account-login">{t("loggedInAs", claimed)}</p> : null}
        <p><a href={`#player=${me.player}`} data-testid="my-profile">{t("myProfile")}</a></p>
      </section>

      {claimed ? (
        <section class="card" key="password">
          <h3>{t("changePassword")}</h3>
          <form class="account-form" data-testid="password-form" onSubmit={async (e) => {
            e.preventDefault();
            const f = e.currentTarget as HTMLFormElement;
            const r = await app.account({ t: "password", password: field(f, "current"), new: field(f, "new") });
            done("password", r);
            if (r.t !== "error") f.reset();
          }}>
            <label>{t("currentPassword")}<input name="current" type="password" autoComplete="current-password" required /></label>
            <label>{t("newPassword")}<input name="new" type="password" autoComplete="new-password" minLength={8} maxLength={128} required /></label>
            <button type="submit">{t("changePassword")}</button>
            <Problem r={result.password ?? null} />
            {result.password?.t === "sessions" ? <p class="muted">{t("passwordChanged")}</p> : null}
          </form>
        </section>
      ) : (
        <section class="card" key="claim">
          <h3>{t("claimTitle")}</h3>
          <p class="muted">{t("claimHelp")}</p>
          <form class="account-form" data-testid="claim-form" onSubmit={async (e) => {
            e.preventDefault();
            const f = e.currentTarget as HTMLFormElement;
            done("claim", await app.account({ t: "claim", login: field(f, "login"), password: field(f, "password") }));
          }}>
            <label>{t("loginName")}<input name="login" autoComplete="username" minLength={3} maxLength={32} required /></label>
            <label>{t("password")}<input name="password" type="password" autoComplete="new-password" minLength={8} maxLength={128} required /></label>
            <button type="submit" class="primary">{t("claim")}</button>
            <Problem r={result.claim ?? null} />
          </form>
        </section>
      )}

      <section class="card">
        <h3>{t("sessionsTitle")}</h3>
        <ul class="sessions" data-testid="sessions">
          {sessions.map((x) => (
            <li key={x.session} data-session={x.session} class="row between">
              <span>
                {device(x.user_agent)} <span class="muted">{x.address ?? ""} · {t("lastSeen", when(x.last_seen))}</span>
              </span>
              {x.current ? <span class="tag">{t("thisDevice")}</span> : (
                <button type="button" data-action="revoke" onClick={async () => done("revoke", await app.account({ t: "revoke", session: x.session }))}>
                  {t("revoke")}
                </button>
              )}
            </li>
          ))}
        </ul>
        <Problem r={result.revoke ?? null} />
      </section>

      <section class="card">
        <h3>{t("privacy")}</h3>
        <label class="check">
          <input type="checkbox" data-testid="hide-history" checked={!!info?.hide_history} disabled={!info}
            onChange={async (e) => done("privacy", await app.account({ t: "privacy", hide_history: (e.target as HTMLInputElement).checked }))} />
          {t("hideHistory")}
        </label>
        <Problem r={result.privacy ?? null} />
      </section>

      <section class="card">
        <h3>{t("deleteAccount")}</h3>
        <p class="muted">{t("deleteHelp")}</p>
        {confirming ? (
          <form class="account-form" data-testid="delete-form" onSubmit={async (e) => {
            e.preventDefault();
            const f = e.currentTarget as HTMLFormElement;
            done("delete", await app.account(claimed ? { t: "delete_account", password: field(f, "password") } : { t: "delete_account" }));
          }}>
            {claimed ? <label>{t("password")}<input name="password" type="password" autoComplete="current-password" required /></label> : null}
            <div class="row">
              <button type="submit" class="danger">{t("deleteConfirm")}</button>
              <button type="button" onClick={() => setConfirming(false)}>{t("cancel")}</button>
            </div>
            <Problem r={result.delete ?? null} />
          </form>
        ) : (
          <button type="button" data-action="delete-account" onClick={() => setConfirming(true)}>{t("deleteAccount")}…</button>
        )}
      </section>
    </div>
  );
}
