// External bots as tournament competitors (docs/tournaments.md "Bots as competitors"): the organiser
// enters one of the server's bots (welcome's `bots`, from its bots.toml) and takes it out again before
// the start. A client only ever sends a name the server listed.

import { useState } from "preact/hooks";
import { t } from "../i18n";
import type { AppState } from "../state";
import { TournamentView, botsToEnter, canRemoveBot, competitorBot } from "../tournament";
import { useApp } from "./common";

/** The organiser's picker of the server's bots, under the players list; nothing when none may be entered. */
export function BotEntry({ s, v, now }: { s: AppState; v: TournamentView; now: number }) {
  const app = useApp();
  const offer = botsToEnter(v, s.bots, now);
  const [picked, setPicked] = useState("");
  const [busy, setBusy] = useState(false);
  if (!offer.length) return null;
  const bot = offer.includes(picked) ? picked : offer[0];
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    await app.tournamentCmd(v.id, { t: "register_bot", bot });
    setBusy(false);
  };
  return (
    <form class="row wrap bot-entry" data-testid="bot-entry" onSubmit={submit}>
      <label>{t("tEnterBot")}{" "}
        <select name="t_bot" value={bot} onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
          {offer.map((b) => <option key={b} value={b}>{b}</option>)}
        </select>
      </label>
      <button type="submit" data-action="register-bot" disabled={busy}>{t("tAddBot")}</button>
    </form>
  );
}

/** On a bot competitor's line of the players list: the tag, and the organiser's "Remove" before the start. */
export function BotTags({ v, id, now }: { v: TournamentView; id: string; now: number }) {
  const app = useApp();
  const name = competitorBot(id);
  if (name === null) return null;
  return (
    <>
      <span class="tag" data-testid="competitor-bot">{t("bot")}</span>
      {canRemoveBot(v, id, now) ? (
        <button type="button" class="small-btn" data-action="unregister-bot"
          onClick={() => void app.tournamentCmd(v.id, { t: "unregister_bot", bot: name })}>{t("tRemoveBot")}</button>
      ) : null}
    </>
  );
}
