// Duplicate (复式) tournaments (docs/tournaments.md "Duplicate"): the duplicate standings beside the
// usual ones, each session's commitment to its walls (and the seed once revealed), and per deal what
// every holder of the same seat made of it, with each table's replay.

import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n";
import type { Key } from "../i18n";
import { AppState } from "../state";
import type { TournamentView } from "../tournament";
import { pname } from "./tournament";

type Dup = NonNullable<TournamentView["duplicate"]>;
type DupSession = Dup["sessions"][number];
type DupDeal = DupSession["deals"][number];

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? "–" : (x > 0 ? "+" : "") + x.toFixed(2));

/** Whether SHA-256("<seed>:<salt>") is the commitment: checked here, in the browser (null: not yet). */
function useVerified(sess: DupSession): boolean | null {
  const [ok, setOk] = useState<boolean | null>(null);
  useEffect(() => {
    if (!sess.seed || !sess.salt || !sess.commitment || !globalThis.crypto?.subtle) { setOk(null); return; }
    const data = new TextEncoder().encode(`${sess.seed}:${sess.salt}`);
    crypto.subtle.digest("SHA-256", data).then((d) => {
      const hex = [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
      setOk(hex === sess.commitment);
    }).catch(() => setOk(null));
  }, [sess.seed, sess.salt, sess.commitment]);
  return ok;
}

export function DuplicateStandings({ s, v }: { s: AppState; v: TournamentView }) {
  const d = v.duplicate;
  if (!d) return null;
  return (
    <section class="card duplicate" data-testid="duplicate-standings">
      <h3>{t("dupStandings")}</h3>
      <p class="muted small">{t("dupHelp")}</p>
      {d.standings.length === 0 ? <p class="muted">{t("dupNone")}</p> : (
        <table>
          <thead><tr><th>{t("rankCol")}</th><th>{t("nameCol")}</th><th class="num">{t("dupScore")}</th><th class="num">{t("dupDeals")}</th></tr></thead>
          <tbody>
            {d.standings.map((r) => (
              <tr key={r.player} class={r.player === v.you.id ? "mine" : ""} data-player={r.player}>
                <td>{r.place}</td><td>{pname(s, r.player)}</td>
                <td class="num" data-testid="dup-score">{fmt(r.score)}</td><td class="num">{r.deals}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Every session's walls and deals: the last finished session and the one being played unfolded. */
export function DuplicateDeals({ s, v, testid }: { s: AppState; v: TournamentView; testid: string }) {
  const d = v.duplicate;
  if (!d) return null;
  const last = Math.max(0, ...d.sessions.filter((x) => x.deals.length).map((x) => x.session));
  return (
    <div class="dup-deals" data-testid={testid}>
      <h3>{t("dupDealsTitle")}</h3>
      <p class="muted small">{t("dupTurn")}</p>
      {d.sessions.filter((x) => x.commitment).map((sess) => (
        <DupSessionBlock key={sess.session} s={s} v={v} sess={sess} open={sess.session === last || !sess.seed} />
      ))}
      {d.sessions.every((x) => !x.commitment) ? <p class="muted">{t("dupNone")}</p> : null}
    </div>
  );
}

function DupSessionBlock({ s, v, sess, open }: { s: AppState; v: TournamentView; sess: DupSession; open: boolean }) {
  const ok = useVerified(sess);
  return (
    <details class="fold" open={open} data-session={sess.session}>
      <summary>{t("sessionN", sess.session)}</summary>
      <p class="small mono" style={{ overflowWrap: "anywhere" }} data-testid="dup-commitment">{t("dupCommitment")}: {sess.commitment}</p>
      {sess.seed ? (
        <p class="small mono" style={{ overflowWrap: "anywhere" }} data-testid="dup-reveal">
          {t("dupSeed")}: {sess.seed} · {t("dupSalt")}: {sess.salt}{" "}
          {ok === true ? <span class="ok" data-testid="dup-verified">✓ {t("dupVerified")}</span>
            : ok === false ? <span class="problem">✗ {t("dupMismatch")}</span> : null}
        </p>
      ) : <p class="muted small">{t("dupHidden")}</p>}
      {sess.deals.map((deal) => <DealTable key={deal.hand} s={s} v={v} deal={deal} />)}
    </details>
  );
}

function DealTable({ s, v, deal }: { s: AppState; v: TournamentView; deal: DupDeal }) {
  const tables = deal.seats[0]?.holders.map((h) => h.table) ?? [];
  return (
    <div class="scroll dup-deal" data-testid="dup-deal" data-hand={deal.hand}>
      <table>
        <caption class="small">{t("handN", deal.hand)}</caption>
        <thead><tr><th>{t("dupSeat")}</th>{tables.map((k) => <th key={k}>{t("tableN", k)}</th>)}</tr></thead>
        <tbody>
          {deal.seats.map((seat) => (
            <tr key={seat.seat}>
              <th>{t(`wind${seat.seat}` as Key)}</th>
              {seat.holders.map((h) => (
                <td key={h.table} class={h.player === v.you.id ? "mine" : ""} data-player={h.player ?? ""}>
                  <span>{pname(s, h.player)}</span>{" "}
                  <span class="muted small" data-testid="dup-slot" data-slot={h.slot}>{t("dupSlot", h.slot + 1)}</span>{" "}
                  <span class="num">{h.points}</span>{" "}
                  <b class={`num ${h.diff !== null && h.diff > 0 ? "ok" : h.diff !== null && h.diff < 0 ? "problem" : "muted"}`}
                    data-testid="dup-diff">{fmt(h.diff)}</b>{" "}
                  {h.replay !== null ? <a href={`#replay=${h.replay}&hand=${deal.hand}`} data-replay={h.replay} title={t("handN", deal.hand)}>{t("replay")}</a> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
