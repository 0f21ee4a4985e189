import { useEffect, useMemo, useState } from "preact/hooks";
import type { GameView } from "../game";
import { t } from "../i18n";
import { replayEvents, replaySteps } from "../replay";
import type { AppState, HandRecord } from "../state";
import type { MatchFile } from "../wire.gen";
import { displayName } from "../state";
import { MeldView, TileView, windName, windShort } from "./common";
import { FanTable, Scoreboard } from "./results";

export function Replay({ id, s }: { id: string; s: AppState }) {
  const [data, setData] = useState<MatchFile | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch(`/api/matches/${encodeURIComponent(id)}`)
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((d) => live && setData(d))
      .catch(() => live && setErr(t("notFound")));
    return () => { live = false; };
  }, [id]);
  const close = () => { location.hash = ""; };
  if (err) return <div class="card"><p>{err}</p><button type="button" onClick={close}>{t("close")}</button></div>;
  if (!data) return <p class="muted center-text">{t("connecting")}</p>;
  return <ReplayView data={data} s={s} close={close} />;
}

function ReplayView({ data, s, close }: { data: MatchFile; s: AppState; close: () => void }) {
  const hands: HandRecord[] = data.hands;
  const ids: string[] = data.players.map((p, i) => p ?? hands[0]?.ids[i] ?? "");
  const names: string[] = ids.map((id) => displayName(s, id, t("bot")));
  const steps = useMemo(() => {
    // The server replays the match and sends each hand's events (the client runs no game).
    const events = replayEvents(data);
    return events ? replaySteps(events, data.rules.hands ?? hands.length) : null;
  }, [data]);
  const [hand, setHand] = useState(0);
  const [step, setStep] = useState(0);
  const handSteps = steps?.[hand] ?? [];
  const nHands = steps ? steps.length : hands.length;
  useEffect(() => setStep(0), [hand]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "ArrowRight") setStep((x) => Math.min(handSteps.length - 1, x + 1));
      else if (e.key === "ArrowLeft") setStep((x) => Math.max(0, x - 1));
      else if (e.key === "PageDown") setHand((x) => Math.min(nHands - 1, x + 1));
      else if (e.key === "PageUp") setHand((x) => Math.max(0, x - 1));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  const rec = hands[hand];
  const view = handSteps[step];
  return (
    <div class="replay" data-testid="replay">
      <div class="card">
        <div class="row between wrap">
          <h2>{t("replayOf", data.id)}</h2>
          <button type="button" onClick={close}>{t("close")}</button>
        </div>
        <div class="row wrap">
          <button type="button" disabled={hand <= 0} onClick={() => setHand(hand - 1)}>{t("prevHand")}</button>
          <b>{t("handOf", hand + 1, nHands)}</b>
          <button type="button" disabled={hand >= nHands - 1} onClick={() => setHand(hand + 1)}>{t("nextHand")}</button>
          {steps ? (
            <>
              <span class="grow" />
              <button type="button" data-action="prev-step" disabled={step <= 0} onClick={() => setStep(step - 1)}>{t("prev")}</button>
              <span data-testid="step">{t("step", step + 1, handSteps.length)}</span>
              <button type="button" data-action="next-step" disabled={step >= handSteps.length - 1} onClick={() => setStep(step + 1)}>{t("next")}</button>
              <input type="range" min={0} max={Math.max(0, handSteps.length - 1)} value={step}
                onInput={(e) => setStep(Number((e.target as HTMLInputElement).value))} />
            </>
          ) : null}
        </div>
        {!steps ? <p class="muted">{t("replayUnavailable")}</p> : null}
      </div>
      {view ? <ReplayBoard v={view} names={names} /> : null}
      {rec && (!view || view.phase === "over") ? (
        <div class="card">
          {rec.winner !== null ? <FanTable fans={rec.fans} total={rec.total} /> : <p>{t("drawGame")}</p>}
        </div>
      ) : null}
      <div class="card"><Scoreboard s={s} hands={hands} ids={ids} /></div>
    </div>
  );
}

export function ReplayBoard({ v, names }: { v: GameView; names: string[] }) {
  const last = v.last;
  return (
    <div class="replay-board card" data-testid="replay-board">
      <div class="muted">{t("prevalent", windName(v.prevalent))} · {t("wall", v.wall)}</div>
      {[...v.players].sort((a, b) => a.wind - b.wind).map((p) => {
        const player = v.match.seats[p.seat] ?? p.seat;
        return (
          <div class={`replay-seat${v.turn === p.seat && v.phase !== "over" ? " acting" : ""}`} key={p.seat}>
            <div class="badge">
              <span class={`wind-chip${p.seat === v.dealer ? " dealer" : ""}`} title={windName(p.wind)}>{windShort(p.wind)}</span>
              <span class="pname">{names[player] ?? player}</span>
              <span class="score">{v.match.scores[player]}</span>
            </div>
            <div class="open">
              <span class="concealed">{(p.hand ?? []).map((x, i) => <TileView key={i} t={x} size="small" />)}</span>
              {p.melds.map((m, i) => <MeldView key={i} m={m} size="small" />)}
              {p.flowers.map((f, i) => <TileView key={`f${i}`} t={f} size="small" />)}
            </div>
            <div class="pond">
              {p.discards.map(([x, claimed], i) => (
                <TileView key={i} t={x} size="pond" claimed={claimed}
                  latest={!!last && last.seat === p.seat && i === p.discards.length - 1} />
              ))}
            </div>
          </div>
        );
      })}
    </div>
  );
}
