import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { GameView } from "../game";
import { t } from "../i18n";
import { replayEvents, replaySteps } from "../replay";
import type { AppState, HandRecord } from "../state";
import type { MatchFile, PlayerProfile } from "../wire.gen";
import { displayName } from "../state";
import { sortTiles } from "../tiles";
import { MeldView, TileView, windName, windShort } from "./common";
import { FanTable, Scoreboard } from "./results";

export function Replay({ id, s, hand }: { id: string; s: AppState; hand?: number }) {
  const [data, setData] = useState<MatchFile | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch(`/api/matches/${encodeURIComponent(id)}`)
      .then((r) => (r.ok ? (r.json() as Promise<MatchFile>) : Promise.reject(new Error(String(r.status)))))
      .then((d) => live && setData(d))
      .catch(() => live && setErr(t("notFound")));
    return () => { live = false; };
  }, [id]);
  const close = () => { location.hash = ""; };
  if (err) return <div class="card"><p>{err}</p><button type="button" onClick={close}>{t("close")}</button></div>;
  if (!data) return <p class="muted center-text">{t("connecting")}</p>;
  return <ReplayView data={data} s={s} close={close} start={(hand ?? 1) - 1} />;
}

function ReplayView({ data, s, close, start = 0 }: { data: MatchFile; s: AppState; close: () => void; start?: number }) {
  const hands: HandRecord[] = data.hands;
  const ids: string[] = data.players.map((p, i) => p ?? hands[0]?.ids[i] ?? "");
  // Players this browser has not met are looked up by their public profile (GET /api/players/<id>).
  const [known, setKnown] = useState<Record<string, string>>({});
  useEffect(() => {
    let live = true;
    for (const id of new Set(ids)) {
      if (!id || s.names[id] || /^bot-\d+$/.test(id)) continue;
      fetch(`/api/players/${encodeURIComponent(id)}`)
        .then((r) => (r.ok ? (r.json() as Promise<PlayerProfile>) : null))
        .then((d) => { if (live && d) setKnown((k) => ({ ...k, [id]: d.name })); })
        .catch(() => undefined);
    }
    return () => { live = false; };
  }, [data]);
  const names: string[] = ids.map((id) => known[id] ?? displayName(s, id, t("bot")));
  const steps = useMemo(() => {
    // The server replays the match and sends each hand's events (the client runs no game).
    const events = replayEvents(data);
    return events ? replaySteps(events, data.rules.hands ?? hands.length) : null;
  }, [data]);
  const [hand, setHand] = useState(Math.max(0, Math.min(start, data.hands.length - 1)));
  const [step, setStep] = useState(0);
  // Whose seat is at the bottom: yours when you played, else the first player's; "Rotate" turns it.
  const mine = s.me ? ids.indexOf(s.me.player) : -1;
  const [bottom, setBottom] = useState(mine >= 0 ? mine : 0);
  const handSteps = steps?.[hand] ?? [];
  const nHands = steps ? steps.length : hands.length;
  useEffect(() => setStep(0), [hand]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowRight") setStep((x) => Math.min(handSteps.length - 1, x + 1));
      else if (e.key === "ArrowLeft") setStep((x) => Math.max(0, x - 1));
      else if (e.key === "Home") setStep(0);
      else if (e.key === "End") setStep(Math.max(0, handSteps.length - 1));
      else if (e.key === "PageDown") setHand((x) => Math.min(nHands - 1, x + 1));
      else if (e.key === "PageUp") setHand((x) => Math.max(0, x - 1));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  const rec = hands[hand];
  const view = handSteps[step];
  const boardRef = useRef<HTMLDivElement>(null);
  const height = useFitHeight(boardRef);
  const last = Math.max(0, handSteps.length - 1);
  return (
    <div class="replay" data-testid="replay">
      <div class="card replay-controls">
        <div class="row between wrap">
          <h2>{t("replayOf", data.id)}</h2>
          <button type="button" class="small-btn" onClick={close}>{t("close")}</button>
        </div>
        <div class="row wrap">
          <button type="button" class="small-btn" disabled={hand <= 0} onClick={() => setHand(hand - 1)}>{t("prevHand")}</button>
          <b>{t("handOf", hand + 1, nHands)}</b>
          <button type="button" class="small-btn" disabled={hand >= nHands - 1} onClick={() => setHand(hand + 1)}>{t("nextHand")}</button>
          {steps ? (
            <>
              <span class="grow" />
              <span class="steps">
                <button type="button" class="small-btn" data-action="first-step" aria-label="Home" disabled={step <= 0} onClick={() => setStep(0)}>«</button>
                <button type="button" class="small-btn" data-action="prev-step" disabled={step <= 0} onClick={() => setStep(step - 1)}>{t("prev")}</button>
                <span data-testid="step">{t("step", step + 1, handSteps.length)}</span>
                <button type="button" class="small-btn" data-action="next-step" disabled={step >= last} onClick={() => setStep(step + 1)}>{t("next")}</button>
                <button type="button" class="small-btn" data-action="last-step" aria-label="End" disabled={step >= last} onClick={() => setStep(last)}>»</button>
              </span>
              <input type="range" min={0} max={last} value={step} aria-label={t("step", step + 1, handSteps.length)}
                onInput={(e) => setStep(Number((e.target as HTMLInputElement).value))} />
              <button type="button" class="small-btn" data-action="rotate" title={t("rotate")} onClick={() => setBottom((bottom + 1) % 4)}>↻ {t("rotate")}</button>
            </>
          ) : null}
        </div>
        {!steps ? <p class="muted">{t("replayUnavailable")}</p> : null}
      </div>
      {view ? (
        <div ref={boardRef} class="replay-fit" style={height ? { height: `${height}px` } : undefined}>
          <ReplayBoard v={view} names={names} bottom={bottom} step={step} steps={handSteps.length} />
        </div>
      ) : null}
      {rec && (!view || view.phase === "over") ? (
        <div class="card">
          {rec.winner !== null ? <FanTable fans={rec.fans} total={rec.total} /> : <p>{t("drawGame")}</p>}
        </div>
      ) : null}
      <div class="card scroll"><Scoreboard s={{ ...s, names: { ...s.names, ...known } }} hands={hands} ids={ids} /></div>
    </div>
  );
}

/** The height that puts the element's bottom at the viewport's (the page scrolls only for what follows). */
function useFitHeight(ref: { current: HTMLElement | null }): number | null {
  const [h, setH] = useState<number | null>(null);
  useLayoutEffect(() => {
    const fit = () => {
      const el = ref.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top + window.scrollY;
      const want = Math.max(300, Math.floor(window.innerHeight - top - 8));
      setH((old) => (old !== null && Math.abs(old - want) < 2 ? old : want));
    };
    fit();
    window.addEventListener("resize", fit);
    return () => window.removeEventListener("resize", fit);
  });
  return h;
}

const POS = ["bottom", "right", "top", "left"] as const;

/** A step of a replay laid out as the table: the four seats around, each with its hand as the replay
 * reveals it, its sets, flowers and pond; at a win, the winning tile set apart and highlighted. */
export function ReplayBoard({ v, names, bottom, step, steps }: {
  v: GameView; names: string[]; bottom: number; step: number; steps: number;
}) {
  const last = v.last;
  const win = v.phase === "over" ? v.result?.win ?? null : null;
  const bottomSeat = Math.max(0, v.match.seats.indexOf(bottom));
  return (
    <div class="table replay-table" data-testid="replay-board">
      {[2, 3, 1, 0].map((rel) => {
        const p = v.players[(bottomSeat + rel) % 4];
        const player = v.match.seats[p.seat] ?? p.seat;
        const won = win?.seat === p.seat;
        const acting = v.turn === p.seat && v.phase !== "over";
        return (
          <section key={p.seat} class={`seat-panel ${POS[rel]}${acting ? " acting" : ""}${won ? " won" : ""}`}
            data-seat={p.seat} data-pos={POS[rel]}>
            <header class="badge">
              <span class={`wind-chip${p.seat === v.dealer ? " dealer" : ""}`} title={windName(p.wind)}>{windShort(p.wind)}</span>
              <span class="pname">{names[player] ?? player}</span>
              <span class="score">{v.match.scores[player]}</span>
            </header>
            <div class="open">
              <span class="concealed" data-testid="replay-hand">
                {/* The winner's standing tiles, then the winning tile apart (win.tiles leaves it out). */}
                {(won ? sortTiles(win!.tiles) : p.hand ?? []).map((x, i) => <TileView key={i} t={x} size="meld" />)}
                {won ? (
                  <span class="win-tile" data-testid="winning-tile">
                    <TileView t={win!.tile} size="meld" latest extra="winning" />
                  </span>
                ) : null}
              </span>
              {p.melds.map((m, i) => <MeldView key={i} m={m} size="meld" />)}
              {p.flowers.length ? (
                <span class="flowers">{p.flowers.map((f, i) => <TileView key={i} t={f} size="small" />)}</span>
              ) : null}
            </div>
            <div class="pond">
              {p.discards.map(([x, claimed], i) => (
                <TileView key={i} t={x} size="pond" claimed={claimed}
                  latest={!!last && v.phase !== "over" && last.seat === p.seat && i === p.discards.length - 1} />
              ))}
            </div>
          </section>
        );
      })}
      <div class="center" data-testid="center">
        <div class="round">{t("prevalent", windName(v.prevalent))}</div>
        <div class="handno">{t("handOf", v.match.hand + 1, v.match.hands)}</div>
        <div class="wallcount">{t("wall", v.wall)}</div>
        <div class="muted-light">{t("step", step + 1, steps)}</div>
        {v.phase === "over" ? (
          <div class="over-word" data-testid="replay-outcome">
            {win ? `${names[v.match.seats[win.seat] ?? win.seat]} · ${t(win.self_drawn ? "selfDrawn" : "win")}` : t("drawGame")}
          </div>
        ) : null}
      </div>
    </div>
  );
}
