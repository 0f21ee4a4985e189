import { useEffect, useMemo } from "preact/hooks";
import type { Fan, GameView } from "../game";
import { options } from "../game";
import { lang, t } from "../i18n";
import { AppState, HandRecord, countdown, displayName } from "../state";
import { Tile, parseTiles, sortTiles, tileLabel } from "../tiles";
import { Countdown, MeldView, TileView, useApp, useNow, windName, windShort } from "./common";

function playerName(s: AppState, ids: string[] | undefined, player: number): string {
  const id = ids?.[player] ?? s.room?.seats[player]?.id;
  return displayName(s, id, t("bot"));
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/** A set in notation ("[123m]" claimed, "{FFFF}" concealed kong, "55p"), as small tiles. */
function FanSet({ set }: { set: string }) {
  let tiles: Tile[] = [];
  try {
    tiles = parseTiles(set.replace(/[[\]{}]/g, ""));
  } catch {
    return <span class="fan-set">{set}</span>;
  }
  const kind = set.startsWith("[") ? " melded" : set.startsWith("{") ? " concealed" : "";
  return <span class={`fan-set${kind}`} data-set={set}>{tiles.map((x, i) => <TileView key={i} t={x} size="small" />)}</span>;
}

export function FanTable({ fans, total }: { fans: Fan[]; total: number }) {
  return (
    <table class="fans-table" data-testid="fans">
      <thead><tr><th>{t("fan")}</th><th class="num">{t("points")}</th></tr></thead>
      <tbody>
        {fans.map((f, i) => {
          const [id, zh, en, pts, count, sets] = f;
          return (
            <tr key={id ?? `x${i}`} data-fan={id ?? undefined}>
              <td>
                <span class="fan-zh">{zh}</span> <span class="fan-en">{en}</span>
                {sets && sets.length ? <span class="fan-sets">{sets.map((x, j) => <FanSet key={j} set={x} />)}</span> : null}
              </td>
              <td class="num">{pts}{count > 1 ? ` × ${count}` : ""}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot><tr><th>{t("total")}</th><th class="num" data-testid="fan-total">{total}</th></tr></tfoot>
    </table>
  );
}

export function WinningHand({ g, seat }: { g: GameView; seat: number }) {
  const win = g.result?.win;
  if (!win) return null;
  const p = g.players[seat];
  return (
    <div class="winning-hand" data-testid="winning-hand">
      {p.melds.map((m, i) => <MeldView key={i} m={m} size="meld" />)}
      <span class="concealed">{sortTiles(win.tiles).map((x, i) => <TileView key={i} t={x} size="meld" />)}</span>
      <span class="win-tile"><TileView t={win.tile} size="meld" latest /></span>
      {p.flowers.length ? <span class="flowers">{p.flowers.map((f, i) => <TileView key={i} t={f} size="small" />)}</span> : null}
    </div>
  );
}

function Settlement({ s, rec }: { s: AppState; rec: HandRecord }) {
  // No penalty column when nobody was penalised: on a phone its width is the names'.
  const penalties = rec.penalties.some((x) => x !== 0);
  return (
    <table class="settlement" data-testid="settlement">
      <thead>
        <tr><th /><th class="num">{t("settlement")}</th>{penalties ? <th class="num">{t("penalty")}</th> : null}<th class="num">{t("total")}</th></tr>
      </thead>
      <tbody>
        {[0, 1, 2, 3].map((p) => {
          const w = (rec.seats.indexOf(p) - (rec.hand % 4) + 4) % 4;
          return (
            <tr key={p} class={rec.winner === p ? "winner" : ""}>
              <td class="who" title={`${windName(w)} · ${playerName(s, rec.ids, p)}`}>
                <span class="wind-full">{windName(w)} · </span><span class="wind-short">{windShort(w)}</span>
                <span class="name">{playerName(s, rec.ids, p)}</span>
              </td>
              <td class="num">{signed(rec.payments[p])}</td>
              {penalties ? <td class="num">{rec.penalties[p] ? signed(rec.penalties[p]) : ""}</td> : null}
              <td class="num"><b>{rec.scores[p]}</b></td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function Scoreboard({ s, hands, ids }: { s: AppState; hands: HandRecord[]; ids?: string[] }) {
  if (!hands.length) return null;
  const last = hands[hands.length - 1];
  const who = ids ?? last.ids;
  return (
    <table class="scoreboard" data-testid="scoreboard">
      <caption>{t("scoreboard")}</caption>
      <thead>
        <tr><th>{t("hand")}</th><th>{t("winner")}</th>{[0, 1, 2, 3].map((p) => <th class="num">{playerName(s, who, p)}</th>)}</tr>
      </thead>
      <tbody>
        {hands.map((h) => (
          <tr key={h.hand}>
            <td>{h.hand + 1}</td>
            <td>{h.winner === null ? t("drawGame") : `${playerName(s, who, h.winner)}${h.total ? ` · ${t("fanPts", h.total)}` : ""}`}</td>
            {h.deltas.map((d) => <td class="num">{signed(d)}</td>)}
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr><th colSpan={2}>{t("total")}</th>{last.scores.map((x) => <th class="num">{x}</th>)}</tr>
      </tfoot>
    </table>
  );
}

const RESULT_KEY_GRACE_MS = 1000;

export function HandResultView({ s }: { s: AppState }) {
  const app = useApp();
  const now = useNow(500);
  const rec = s.handResult!;
  const g = s.game;
  const opts = options(g?.legal);
  const cd = s.clock?.decision === "between" ? countdown(s.clock, s.clockOffset, now) : null;
  const winSeat = g?.result?.win?.seat;
  const last = !!s.matchResult; // the match's last hand: the ranking follows
  const shownAt = useMemo(() => Date.now(), [rec]);
  useEffect(() => {
    // Enter continues to the next hand, or after the last one to the ranking. Not a held Enter nor
    // one in the first moment: the Enter that declared the win, pressed twice, would skip the fans.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.repeat || Date.now() - shownAt < RESULT_KEY_GRACE_MS)) { e.preventDefault(); return; }
      if (e.key === "Enter" && (opts.cont || last)) {
        e.preventDefault();
        if (opts.cont) app.act({ a: "continue" });
        else app.closeHandResult();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  let headline: string;
  if (rec.winner === null) headline = t("drawGame");
  else {
    const w = playerName(s, rec.ids, rec.winner);
    const tile = rec.tile !== null ? tileLabel(rec.tile, lang()) : "";
    if (rec.self_drawn) headline = t("winsSelf", w, tile);
    else if (rec.robbed) headline = t("winsRob", w, playerName(s, rec.ids, rec.discarder!), tile);
    else headline = t("winsFrom", w, playerName(s, rec.ids, rec.discarder!), tile);
  }
  return (
    <div class="overlay" role="dialog" data-testid="hand-result">
      <div class="card result">
        <h2>{t("handResult")} · {t("handOf", rec.hand + 1, g?.match.hands ?? rec.hand + 1)}</h2>
        <p class="headline" data-testid="headline">{headline}</p>
        {g && winSeat !== undefined ? <WinningHand g={g} seat={winSeat} /> : null}
        {rec.winner !== null && rec.fans.length ? <FanTable fans={rec.fans} total={rec.total} /> : null}
        {rec.winner === null && g ? <AllHands s={s} g={g} /> : null}
        <Settlement s={s} rec={rec} />
        <details>
          <summary>{t("scoreboard")}</summary>
          <Scoreboard s={s} hands={s.records.current} />
        </details>
        <div class="row wrap">
          {last && !opts.cont ? (
            <button type="button" class="primary" data-action="show-ranking" onClick={() => app.closeHandResult()}>
              {t("finalRanking")} <kbd>↵</kbd>
            </button>
          ) : opts.cont ? (
            <button type="button" class="primary" data-action="continue" onClick={() => app.act({ a: "continue" })}>
              {t("continue")} {cd ? <Countdown seconds={cd.left} /> : null} <kbd>↵</kbd>
            </button>
          ) : g && g.match.phase === "between" && g.seat !== null ? <span class="muted">{t("waitingOthers")}</span> : (
            <button type="button" onClick={() => app.closeHandResult()}>{t("close")}</button>
          )}
        </div>
      </div>
    </div>
  );
}

function AllHands({ s, g }: { s: AppState; g: GameView }) {
  return (
    <div class="all-hands" data-testid="all-hands">
      <h3>{t("showAll")}</h3>
      {g.players.map((p) => {
        const tiles = p.seat === g.seat ? g.hand : p.hand;
        return (
          <div class="row wrap" key={p.seat}>
            <span class="who">{windName(p.wind)} · {displayName(s, s.room?.seats[g.match.seats[p.seat]]?.id, t("bot"))}</span>
            {p.melds.map((m, i) => <MeldView key={i} m={m} size="small" />)}
            {tiles && tiles.length ? sortTiles(tiles).map((x, i) => <TileView key={i} t={x} size="small" />) :
              Array.from({ length: p.tiles }, (_, i) => <TileView key={i} size="small" back />)}
          </div>
        );
      })}
    </div>
  );
}

export function MatchResultView({ s }: { s: AppState }) {
  const app = useApp();
  const rec = s.matchResult!;
  // The replay: the reveal after the match, or (a page reloaded on the ranking) the snapshot's record.
  const replayId = s.reveals[rec.match]?.id ?? rec.id;
  const seated = s.you?.seat !== null && s.you?.seat !== undefined;
  const tournament = s.room ? s.tables[s.room.id]?.tournament : undefined;
  return (
    <div class="overlay" role="dialog" data-testid="match-result">
      <div class="card result">
        <h2>{t("finalRanking")}</h2>
        <ol class="ranking">
          {rec.ranking.map((r) => (
            <li key={r.player} class={s.you?.id === r.id ? "mine" : ""}>
              <span class="place">{t("place", r.place)}</span>
              <span class="name">{displayName(s, r.id, t("bot"))}</span>
              <span class="num">{r.score}</span>
            </li>
          ))}
        </ol>
        <Scoreboard s={s} hands={rec.hands} ids={rec.ids} />
        <div class="row wrap">
          {seated && !s.room?.table && !s.roomGone ? <button type="button" class="primary" data-action="rematch" onClick={() => app.rematch()}>{t("rematch")}</button> : null}
          {tournament ? (
            <button type="button" class="primary" data-action="back-to-tournament" onClick={() => { app.leave(); app.navigate(`tournament=${tournament}`); }}>
              {t("backToTournament")}
            </button>
          ) : null}
          <button type="button" onClick={() => app.leave()}>{t("backToLobby")}</button>
          {replayId ? <a class="button" data-action="replay" href={`#replay=${replayId}`}>{t("replay")}</a> : null}
        </div>
      </div>
    </div>
  );
}
