// A player's public profile (#player=ID): ratings with their curve per room type, statistics, the
// fans they score most, their matches with replay links, and each room type's leaderboard
// (GET /api/players/<id>, GET /api/leaderboard/<type>; docs/ratings.md).

import { useEffect, useState } from "preact/hooks";
import { fanName, t } from "../i18n";
import type { FanCount, Leaderboard as Board, PlayerProfile } from "../wire.gen";

type Curve = [number, number][];

/** The polyline of a rating curve in a w x h box (index on x: one step per rated match shown). */
export function curvePath(points: Curve, w: number, h: number, pad = 4): string {
  if (!points.length) return "";
  const ys = points.map((p) => p[1]);
  const lo = Math.min(0, ...ys), hi = Math.max(0, ...ys);
  const span = hi - lo || 1;
  const n = Math.max(1, points.length - 1);
  return points.map((p, i) => {
    const x = pad + (i / n) * (w - 2 * pad);
    const y = pad + (1 - (p[1] - lo) / span) * (h - 2 * pad);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  }).join(" ");
}

function RatingChart({ type, points: rated }: { type: string; points: Curve }) {
  const w = 320, h = 120;
  // From 0, a new player's rating, to the rating after each match shown.
  const points: Curve = rated.length ? [[rated[0][0], 0], ...rated] : [];
  const last = points.length ? points[points.length - 1][1] : 0;
  return (
    <figure class="chart" data-testid={`curve-${type}`}>
      <figcaption>{t(`type_${type}` as any)} · {last.toFixed(2)}</figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="img" aria-label={t("ratingCurve")}>
        <rect x="0" y="0" width={w} height={h} fill="none" stroke="#ccc" />
        <polyline points={curvePath(points, w, h)} fill="none" stroke="#b22" stroke-width="2" />
      </svg>
    </figure>
  );
}

function FanChart({ fans }: { fans: FanCount[] }) {
  if (!fans.length) return <p class="muted">{t("noWinsYet")}</p>;
  const top = Math.max(...fans.map((f) => f.count));
  const w = 320, row = 22, label = 120;
  return (
    <svg viewBox={`0 0 ${w} ${row * fans.length}`} width={w} height={row * fans.length} data-testid="fan-chart"
      role="img" aria-label={t("topFans")}>
      {fans.map((f, i) => {
        const bw = ((w - label - 30) * f.count) / top;
        return (
          <g key={f.fan} transform={`translate(0 ${i * row})`}>
            <text x="0" y="15" font-size="13">{fanName([null, f.fan, f.name_en])}</text>
            <rect x={label} y="4" width={bw} height="14" fill="#2a6" />
            <text x={label + bw + 4} y="15" font-size="12">{f.count}</text>
          </g>
        );
      })}
    </svg>
  );
}

const pct = (x: number | null) => (x === null ? "—" : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "—" : String(x));

export function Leaderboard({ type, player }: { type: string; player?: string }) {
  const [board, setBoard] = useState<Board | null>(null);
  const [page, setPage] = useState(0);
  useEffect(() => {
    let live = true;
    const q = new URLSearchParams({ page: String(page), ...(player ? { player } : {}) });
    fetch(`/api/leaderboard/${encodeURIComponent(type)}?${q}`)
      .then((r) => (r.ok ? (r.json() as Promise<Board>) : null)).then((d) => live && setBoard(d)).catch(() => {});
    return () => { live = false; };
  }, [type, page, player]);
  if (!board) return null;
  const pages = Math.max(1, Math.ceil(board.total / board.per_page));
  return (
    <div class="leaderboard" data-testid={`leaderboard-${type}`}>
      <h3>{t("leaderboard")} · {t(`type_${type}` as any)}</h3>
      <table>
        <thead><tr><th>#</th><th>{t("player")}</th><th>{t("rating")}</th><th>{t("matchesPlayed")}</th></tr></thead>
        <tbody>
          {board.entries.map((e) => (
            <tr key={e.player} class={e.player === player ? "me" : ""} data-player={e.player}>
              <td>{e.rank}</td><td><a href={`#player=${e.player}`}>{e.name}</a></td>
              <td>{e.rating.toFixed(2)}</td><td>{e.matches}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {board.you ? <p data-testid="board-you">{t("yourRank", board.you.rank, board.you.rating.toFixed(2))}</p> : null}
      {pages > 1 ? (
        <div class="row">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>{t("prev")}</button>
          <span>{page + 1}/{pages}</span>
          <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>{t("next")}</button>
        </div>
      ) : null}
    </div>
  );
}

export function ProfilePage({ id }: { id: string }) {
  const [data, setData] = useState<PlayerProfile | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [page, setPage] = useState(0);
  useEffect(() => {
    let live = true;
    fetch(`/api/players/${encodeURIComponent(id)}?page=${page}`)
      .then((r) => (r.ok ? (r.json() as Promise<PlayerProfile>) : Promise.reject(new Error(String(r.status)))))
      .then((d) => live && setData(d))
      .catch(() => live && setErr(t("notFound")));
    return () => { live = false; };
  }, [id, page]);
  const back = () => { location.hash = ""; };
  if (err) return <div class="card"><p>{err}</p><button type="button" onClick={back}>{t("close")}</button></div>;
  if (!data) return <p class="muted center-text">{t("connecting")}</p>;
  const ratings = data.ratings ?? {}, curves = data.curves ?? {}; // absent when the history is hidden
  const types = Object.keys(ratings);
  const st = data.stats;
  const matches = data.matches ?? { page: 0, per_page: 1, total: 0, items: [] };
  return (
    <div class="profile-page" data-testid="profile">
      <section class="card">
        <div class="row between">
          <h2 data-testid="profile-name">{data.name}</h2>
          <button type="button" class="link" onClick={back}>{t("back")}</button>
        </div>
        <p class="muted">{data.player}</p>
        {data.hide_history ? <p data-testid="profile-hidden">{t("historyHidden")}</p> : null}
      </section>
      {st ? (
        <>
          <section class="card">
            <h3>{t("rating")}</h3>
            {types.length ? types.map((ty) => (
              <div key={ty} data-testid={`rating-${ty}`}>
                <p>{t(`type_${ty}` as any)}: <strong>{ratings[ty].rating.toFixed(2)}</strong>
                  {" "}<span class="muted">({t("ratedMatches", ratings[ty].matches)})</span></p>
                <RatingChart type={ty} points={curves[ty] ?? []} />
              </div>
            )) : <p class="muted">{t("unrated")}</p>}
          </section>
          <section class="card" data-testid="stats">
            <h3>{t("statistics")}</h3>
            <table>
              <tbody>
                <tr><td>{t("matchesPlayed")}</td><td>{st.matches}</td></tr>
                <tr><td>{t("winRate")}</td><td data-testid="win-rate">{pct(st.win_rate)}</td></tr>
                <tr><td>{t("dealInRate")}</td><td>{pct(st.deal_in_rate)}</td></tr>
                <tr><td>{t("selfDrawnShare")}</td><td>{pct(st.self_drawn_share)}</td></tr>
                <tr><td>{t("averageFan")}</td><td>{num(st.average_fan)}</td></tr>
                <tr><td>{t("averagePlace")}</td><td>{num(st.average_place)}</td></tr>
              </tbody>
            </table>
            <h3>{t("topFans")}</h3>
            <FanChart fans={data.fans ?? []} />
          </section>
          <section class="card" data-testid="matches">
            <h3>{t("matchesPlayed")}</h3>
            <table>
              <tbody>
                {matches.items.map((m) => (
                  <tr key={m.id}>
                    <td>{new Date(m.finished_at * 1000).toLocaleString()}</td>
                    <td>{t(`type_${m.type}` as any)}</td>
                    <td>{t("place", m.place)}{m.abandoned ? ` (${t("abandoned")})` : ""}</td>
                    <td>{m.points}</td>
                    <td>{m.rating === null ? "" : m.rating.toFixed(2)}</td>
                    <td><a href={`#replay=${m.id}`} data-replay={m.id}>{t("replay")}</a></td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div class="row">
              <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>{t("prev")}</button>
              <button type="button" disabled={(page + 1) * matches.per_page >= matches.total}
                onClick={() => setPage(page + 1)}>{t("next")}</button>
            </div>
          </section>
        </>
      ) : null}
      <section class="card">
        {(types.length ? types : ["guobiao"]).map((ty) => <Leaderboard key={ty} type={ty} player={data.player} />)}
      </section>
    </div>
  );
}
