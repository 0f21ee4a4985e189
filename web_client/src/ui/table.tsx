import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Action, GameView, Options, PlayerView } from "../game";
import { handLayout, options } from "../game";
import { hintFor, readyDiscards } from "../hint";
import { fanName, lang, t } from "../i18n";
import { AppState, countdown, displayName } from "../state";
import { Tile, tileLabel } from "../tiles";
import { Countdown, MeldView, TileView, useApp, useNow, windName, windShort } from "./common";
import { HandResultView, MatchResultView } from "./results";
import { TableStrip, pname } from "./tournament";

const POS = ["bottom", "right", "top", "left"] as const;

/** The id of the player at a table seat this hand. */
export function seatPlayer(g: GameView, seat: number): number {
  return g.match.seats[seat] ?? seat;
}

export function seatName(s: AppState, g: GameView, seat: number): string {
  const p = seatPlayer(g, seat);
  const id = s.room?.seats[p]?.id;
  return displayName(s, id, t("bot"));
}

export function Table({ s }: { s: AppState }) {
  const app = useApp();
  const g = s.game!;
  const now = useNow(250);
  const cd = countdown(s.clock, s.clockOffset, now);
  const opts = options(g.legal);
  const viewer = g.seat;
  const [readyMode, setReadyMode] = useState(false);
  const spectator = viewer === null;
  const myTurn = !spectator && g.phase === "turn" && g.turn === viewer && opts.discards.size + opts.readyDiscards.size > 0;
  useEffect(() => {
    if (!myTurn) setReadyMode(false);
  }, [myTurn]);
  const showClaim = !spectator && g.phase === "claim" && g.to_act && app.wantsClaim(opts);
  const decidingPlayer = s.clock?.decision === "turn" ? s.clock.player : undefined;
  const callouts = useCallouts(g);
  return (
    <div class={`table-wrap${spectator ? " spectating" : ""}`}>
      <TableStrip s={s} />
      <div class="table" data-testid="table">
        {[2, 3, 1, 0].map((rel) => {
          const seat = (rel + (viewer ?? 0)) % 4;
          const p = g.players[seat];
          const acting = g.phase === "turn" && g.turn === seat;
          return (
            <SeatPanel
              key={seat} s={s} g={g} p={p} pos={POS[rel]} acting={acting}
              timer={acting && cd && decidingPlayer === seatPlayer(g, seat) ? cd : null}
              callout={callouts.find((c) => c.seat === seat) ?? null}
            />
          );
        })}
        <Center s={s} g={g} cd={g.phase === "claim" ? cd : null} />
      </div>
      {/* In the page's flow, above the hand: it covers neither the hand nor a name label. */}
      {showClaim ? <ClaimPrompt s={s} g={g} opts={opts} seconds={cd?.left ?? null} /> : null}
      {!spectator ? (
        <HandBar s={s} g={g} opts={opts} myTurn={myTurn} readyMode={readyMode} setReadyMode={setReadyMode} claiming={!!showClaim} />
      ) : (
        <div class="spectator-bar">{t("spectating")} · <button type="button" onClick={() => app.leave()}>{t("leave")}</button></div>
      )}
      {/* The last hand's result comes first, then the ranking (its button, or Enter). */}
      {s.handResult && (!s.matchResult || s.handResult.match === s.matchResult.match) ? <HandResultView s={s} />
        : s.matchResult ? <MatchResultView s={s} /> : null}
    </div>
  );
}

/** A call or a win just made at a seat: a word over its panel for a moment (style.css "callouts"). */
interface Callout { seat: number; kind: "chow" | "pung" | "kong" | "win" | "selfdrawn"; key: number }

const CALLOUT_MS = 1400;
let calloutKey = 0;

/** Callouts for what changed since the last view: one seat's new set, or the hand's win. A jump of
 * several sets at once (a snapshot after a reconnect) shows none. */
function useCallouts(g: GameView): Callout[] {
  const prev = useRef<GameView | null>(null);
  const [list, setList] = useState<Callout[]>([]);
  useEffect(() => {
    const p = prev.current;
    prev.current = g;
    if (!p || p.match.hand !== g.match.hand || p.players.length !== g.players.length) return;
    const fresh: Callout[] = [];
    const grown = g.players.filter((x, i) => x.melds.length !== p.players[i].melds.length);
    if (grown.length === 1 && grown[0].melds.length === p.players[grown[0].seat].melds.length + 1) {
      const m = grown[0].melds[grown[0].melds.length - 1];
      fresh.push({ seat: grown[0].seat, kind: m.kind, key: ++calloutKey });
    }
    const win = g.result?.win;
    if (win && !p.result?.win) fresh.push({ seat: win.seat, kind: win.self_drawn ? "selfdrawn" : "win", key: ++calloutKey });
    if (!fresh.length) return;
    setList((l) => [...l.filter((c) => !fresh.some((f) => f.seat === c.seat)), ...fresh]);
    const keys = new Set(fresh.map((f) => f.key));
    setTimeout(() => setList((l) => l.filter((c) => !keys.has(c.key))), CALLOUT_MS);
  }, [g]);
  return list;
}

const CALLOUT_WORD = { chow: "chow", pung: "pung", kong: "kong", win: "win", selfdrawn: "selfDrawn" } as const;

function SeatPanel({ s, g, p, pos, acting, timer, callout }: {
  s: AppState; g: GameView; p: PlayerView; pos: string; acting: boolean;
  timer: { left: number; free: number; bank: number } | null; callout: Callout | null;
}) {
  const player = seatPlayer(g, p.seat);
  const info = s.room?.seats[player];
  const score = g.match.scores[player] ?? 0;
  const self = g.seat === p.seat;
  const auto = s.clock?.auto?.[player] ?? info?.auto ?? null;
  const last = g.last;
  const revealed = !self && p.hand && p.hand.length ? p.hand : null;
  const winner = g.result?.win?.seat === p.seat;
  return (
    <section class={`seat-panel ${pos}${acting ? " acting" : ""}${self ? " self" : ""}${winner ? " won" : ""}`} data-seat={p.seat} data-pos={pos}>
      {callout ? (
        <div class={`callout ${callout.kind}`} key={callout.key} data-testid="callout" data-kind={callout.kind} aria-hidden="true">
          {t(CALLOUT_WORD[callout.kind])}
        </div>
      ) : null}
      <header class="badge">
        <span class={`wind-chip${p.seat === g.dealer ? " dealer" : ""}`} title={`${windName(p.wind)}${p.seat === g.dealer ? " · " + t("dealer") : ""}`}>
          {windShort(p.wind)}
        </span>
        <span class="pname">{seatName(s, g, p.seat)}</span>
        <span class="score" data-testid="score">{score}</span>
        {p.seat === g.dealer ? <span class="tag dealer-tag">{t("dealer")}</span> : null}
        {p.declared ? <span class="tag ready-tag">{t("declared")}</span> : null}
        {p.blocked || info?.blocked || info?.no_win ? <span class="tag warn" data-testid="no-win">{t("blocked")}</span> : null}
        {info?.substitute ? (
          <span class="tag sub-tag" data-testid="substitute">
            {t("substituteTag")}{info.replaces ? ` · ${t("substituteFor", pname(s, info.replaces))}` : ""}
          </span>
        ) : null}
        {info && !info.connected && !info.bot ? <span class="tag warn">{t("disconnected")}</span> : null}
        {auto ? <span class="tag">{t("auto")}</span> : null}
        {timer ? <Countdown seconds={timer.free > 0 ? timer.free : timer.left} bank={timer.free > 0 ? timer.bank : undefined} /> : null}
      </header>
      <div class="open">
        {!self ? (
          revealed ? (
            <span class={`concealed revealed${winner ? " winner" : ""}`}>
              {revealed.map((x, i) => <TileView key={i} t={x} size="meld" />)}
            </span>
          ) : (
            <span class="concealed backs" data-count={p.tiles}>
              {Array.from({ length: p.tiles }, (_, i) => <TileView key={i} size="small" back />)}
              <span class="count">×{p.tiles}</span>
            </span>
          )
        ) : null}
        {p.melds.map((m, i) => (
          <span key={i} class={`meld-slot${callout && callout.kind !== "win" && callout.kind !== "selfdrawn" && i === p.melds.length - 1 ? " fresh" : ""}`}>
            <MeldView m={m} size="meld" />
          </span>
        ))}
        {p.flowers.length ? (
          <span class="flowers" title={t("flowers")}>
            {p.flowers.map((f, i) => <TileView key={i} t={f} size="small" />)}
          </span>
        ) : null}
      </div>
      <div class="pond" data-testid="pond">
        {p.discards.map(([tile, claimed], i) => (
          <TileView
            key={i} t={tile} size="pond" claimed={claimed}
            latest={!!last && last.seat === p.seat && i === p.discards.length - 1 && !claimed}
          />
        ))}
      </div>
    </section>
  );
}

function Center({ s, g, cd }: { s: AppState; g: GameView; cd: { left: number } | null }) {
  return (
    <div class="center" data-testid="center">
      <div class="round">{t("prevalent", windName(g.prevalent))}</div>
      <div class="handno">{t("handOf", g.match.hand + 1, g.match.hands)}</div>
      <div class="wallcount" data-testid="wall">{t("wall", g.wall)}</div>
      {g.phase === "claim" && g.claim ? (
        <div class="claim-tile">
          <TileView t={g.claim.tile} size="meld" latest />
          {cd ? <Countdown seconds={cd.left} warn={3} /> : null}
        </div>
      ) : null}
      {s.room?.type ? <div class="rtype muted">{t(`type_${s.room.type}` as "type_guobiao")}</div> : null}
    </div>
  );
}

function HandBar({ s, g, opts, myTurn, readyMode, setReadyMode, claiming }: {
  s: AppState; g: GameView; opts: Options; myTurn: boolean; readyMode: boolean; setReadyMode: (b: boolean) => void;
  claiming: boolean;
}) {
  const app = useApp();
  const { tiles, drawn } = handLayout(g);
  const all = drawn === null ? tiles : [...tiles, drawn];
  const [sel, setSel] = useState<number | null>(null);
  const canDiscard = (x: Tile) => (readyMode ? opts.readyDiscards.has(x) : opts.discards.has(x));
  const key = `${g.match.hand}:${g.seq}:${all.join(",")}`;
  const winOffered = myTurn && opts.win;
  useEffect(() => {
    // A new decision: select the drawn tile (the usual discard), or nothing. When a win is offered,
    // nothing is selected: Enter wins, and a discard needs a tile chosen first.
    setSel(myTurn && !opts.win ? all.length - 1 : null);
  }, [key, myTurn]);
  const ready = useMemo(() => (app.prefs.hint && myTurn ? readyDiscards(g) : new Set<Tile>()), [key, myTurn, app.prefs.hint]);
  const discard = (i: number) => {
    const x = all[i];
    if (x === undefined || !myTurn || !canDiscard(x)) return;
    app.act(readyMode ? { a: "discard", tile: x, ready: true } : { a: "discard", tile: x });
    setReadyMode(false);
    setSel(null);
  };
  const clickTile = (i: number) => {
    if (!myTurn) return;
    if (sel === i) discard(i);
    else setSel(i);
  };
  // Keyboard: ← → choose, Enter / ↓ discard, H win, K kong, R 报听 (Enter continues: results.tsx).
  // When a win is offered Enter means 和, never a discard: ↓ or Space discards the chosen tile.
  // The keys follow what is on screen: the listener is replaced before the next paint, not after it.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      if (g.phase === "claim") return; // the claim prompt has its own keys
      const k = e.key.toLowerCase();
      if (myTurn) {
        if (k === "arrowleft") { setSel((x) => Math.max(0, (x ?? all.length) - 1)); e.preventDefault(); }
        else if (k === "arrowright") { setSel((x) => Math.min(all.length - 1, (x ?? -1) + 1)); e.preventDefault(); }
        else if (k === "enter" && opts.win) { app.act({ a: "win" }); e.preventDefault(); }
        else if ((k === "enter" || k === "arrowdown" || k === " ") && sel !== null) { discard(sel); e.preventDefault(); }
        else if ((k === "h" || k === "w") && opts.win) app.act({ a: "win" });
        else if (k === "k" && opts.concealedKongs.length + opts.addedKongs.length === 1) {
          app.act(opts.concealedKongs.length ? { a: "concealed_kong", tile: opts.concealedKongs[0] } : { a: "added_kong", tile: opts.addedKongs[0] });
        } else if (k === "r" && opts.readyDiscards.size) setReadyMode(!readyMode);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  const selectedTile = sel !== null ? all[sel] : undefined;
  const hintOn = app.prefs.hint;
  const waits = hintOn ? (myTurn ? (selectedTile !== undefined ? hintFor(g, selectedTile) : []) : hintFor(g, null)) : [];
  const countdownMine = myTurn ? countdown(s.clock, s.clockOffset, Date.now() / 1000) : null;
  return (
    <div class={`hand-bar${myTurn ? " my-turn" : ""}${claiming ? " claiming" : ""}`} data-testid="hand-bar">
      <div class="status-line">
        {myTurn ? <b class="your-turn" data-testid="your-turn">{readyMode ? t("declareReadyOn") : t("yourTurn")}</b> : (
          g.phase === "turn" ? <span class="muted">{t("waitingFor", seatName(s, g, g.turn))}</span> : <span />
        )}
        {countdownMine ? (
          <Countdown seconds={countdownMine.free > 0 ? countdownMine.free : countdownMine.left}
            bank={countdownMine.free > 0 ? countdownMine.bank : undefined} />
        ) : null}
        {myTurn ? <span class="muted small help">{t(winOffered ? "winHelp" : "discardHelp")}</span> : null}
      </div>
      <div class={`hand${all.length > 10 ? " long" : ""}`} data-testid="hand">
        {all.map((x, i) => (
          <TileView
            key={`${i}-${x}`} t={x} size="hand" selected={myTurn && sel === i}
            marked={ready.has(x)} dim={myTurn && !canDiscard(x)}
            extra={drawn !== null && i === all.length - 1 ? "drawn" : undefined}
            onClick={myTurn ? () => clickTile(i) : undefined}
          />
        ))}
      </div>
      <div class="actions" data-testid="actions">
        {winOffered ? (
          <button type="button" class="win primary" data-action="win" onClick={() => app.act({ a: "win" })}>
            {t("selfDrawn")} <kbd>↵</kbd> <kbd>H</kbd>
          </button>
        ) : null}
        {myTurn ? opts.concealedKongs.map((x) => (
          <button type="button" data-action="concealed_kong" onClick={() => app.act({ a: "concealed_kong", tile: x })}>
            {t("concealedKong")} <TileView t={x} size="small" />
          </button>
        )) : null}
        {myTurn ? opts.addedKongs.map((x) => (
          <button type="button" data-action="added_kong" onClick={() => app.act({ a: "added_kong", tile: x })}>
            {t("addedKong")} <TileView t={x} size="small" />
          </button>
        )) : null}
        {myTurn && opts.readyDiscards.size ? (
          <button type="button" class={readyMode ? "on" : ""} data-action="declare" onClick={() => setReadyMode(!readyMode)}>
            {t("declareReady")} <kbd>R</kbd>
          </button>
        ) : null}
        {myTurn && sel !== null && all[sel] !== undefined && canDiscard(all[sel]) ? (
          <button type="button" class={winOffered ? "" : "primary"} data-action="discard" onClick={() => discard(sel)}>
            {lang() === "zh" ? "打出" : "Discard"} <span class="tile-name">{tileLabel(all[sel], lang())}</span> <kbd>{winOffered ? "↓" : "↵"}</kbd>
          </button>
        ) : null}
        <span class="grow" />
        <label class="check small auto-win" title={t("autoWin")}>
          <input type="checkbox" checked={app.prefs.autoWin} data-testid="auto-win-toggle"
            onChange={(e) => app.setPrefs({ autoWin: (e.target as HTMLInputElement).checked })} />
          {t("autoWin")}
        </label>
        <label class="check small auto-win" title={t("noCalls")}>
          <input type="checkbox" checked={app.prefs.noCalls} data-testid="no-calls-toggle"
            onChange={(e) => app.setPrefs({ noCalls: (e.target as HTMLInputElement).checked })} />
          {t("noCalls")}
        </label>
        <SoundToggle />
        <AutoToggle s={s} g={g} />
        <button type="button" data-action="leave-table" onClick={() => app.askLeave()}>{t("leave")}</button>
      </div>
      {hintOn ? <HintPanel g={g} waits={waits} myTurn={myTurn} selected={selectedTile} /> : null}
    </div>
  );
}

/** The mute switch: a speaker icon, crossed out when muted. */
function SoundToggle() {
  const app = useApp();
  const on = app.sound.on;
  return (
    <button type="button" class={`sound-toggle${on ? " on" : ""}`} data-testid="sound-toggle" data-on={String(on)}
      aria-pressed={on} title={t(on ? "soundOn" : "soundOff")} aria-label={t(on ? "soundOn" : "soundOff")}
      onClick={() => app.setSound(!on)}>
      <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round">
        <path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor" />
        {on ? <path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" /> : <path d="M16 9l6 6M22 9l-6 6" />}
      </svg>
    </button>
  );
}

function AutoToggle({ s, g }: { s: AppState; g: GameView }) {
  const app = useApp();
  const player = g.seat === null ? null : seatPlayer(g, g.seat);
  if (player === null) return null;
  const on = !!s.clock?.auto?.[player];
  return (
    <button type="button" class={on ? "on" : ""} data-action="auto" onClick={() => app.setAuto(!on)}>
      {on ? t("autoOff") : t("autoOn")}
    </button>
  );
}

function HintPanel({ g, waits, myTurn, selected }: {
  g: GameView; waits: ReturnType<typeof hintFor>; myTurn: boolean; selected: Tile | undefined;
}) {
  if (g.phase === "over") return null;
  const title = myTurn
    ? selected !== undefined ? t("ifDiscard", tileLabel(selected, lang())) : t("hint")
    : t("waitsLabel");
  return (
    <div class="hint" data-testid="hint">
      <span class="hint-title">{t("hint")} · {title}</span>
      {waits.length === 0 ? <span class="muted">{t("noWaits")}</span> : (
        <span class="waits">
          {waits.map((w) => (
            <span class={`wait${w.meetsMin === false ? " below-min" : ""}`} data-wait={w.tile} key={w.tile}
              data-meets-min={w.meetsMin === undefined ? undefined : String(w.meetsMin)}>
              <TileView t={w.tile} size="small" dim={w.unseen === 0} />
              <span class="unseen">{t("unseen", w.unseen)}</span>
              {w.fans && w.fans.length ? (
                <span class="fans">
                  <span class="fan-list">
                    {w.fans.map((f) => `${fanName(f)} ${f[3]}${f[4] > 1 ? "×" + f[4] : ""}`).join(" · ")}
                  </span>
                  {" = "}<b class="wait-total">{t("fanPts", w.total ?? 0)}</b>
                  {w.selfTotal !== undefined && w.selfTotal !== w.total ? (
                    <span class="self-total" data-self-total={w.selfTotal}>{t("selfDrawnPts", w.selfTotal)}</span>
                  ) : null}
                </span>
              ) : null}
              {w.meetsMin === false
                ? <span class={`tag ${w.selfMeetsMin ? "self-only" : "warn"}`}>{t(w.selfMeetsMin ? "selfOnly" : "tooFew")}</span>
                : null}
            </span>
          ))}
        </span>
      )}
    </div>
  );
}

function ClaimPrompt({ s, g, opts, seconds }: { s: AppState; g: GameView; opts: Options; seconds: number | null }) {
  const app = useApp();
  const claim = g.claim!;
  const choices: { key: string; label: string; action: Action; tiles?: Tile[]; cls: string }[] = [];
  // 和 is the primary action: Enter takes it (as for 自摸); the other claims keep their own keys.
  if (opts.win) choices.push({ key: "H", label: t("win"), action: { a: "win" }, cls: "win primary" });
  if (opts.kong) choices.push({ key: "K", label: t("kong"), action: { a: "kong" }, cls: "kong" });
  if (opts.pung) choices.push({ key: "P", label: t("pung"), action: { a: "pung" }, cls: "pung" });
  opts.chows.forEach((low, i) => {
    choices.push({
      key: opts.chows.length === 1 ? "C" : String(i + 1), label: t("chow"), action: { a: "chow", low },
      tiles: [low, low + 1, low + 2], cls: "chow",
    });
  });
  choices.push({ key: "Esc", label: t("pass"), action: { a: "pass" }, cls: "pass" });
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement) return;
      const k = e.key;
      const hit = choices.find((c) =>
        (c.key === "Esc" && (k === "Escape" || k === " " || k.toLowerCase() === "g")) ||
        c.key.toLowerCase() === k.toLowerCase() || (c.key === "H" && (k.toLowerCase() === "w" || k === "Enter")));
      if (hit) {
        e.preventDefault();
        app.act(hit.action);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
  const who = seatName(s, g, claim.seat);
  return (
    <div class="claim-prompt" role="dialog" data-testid="claim-prompt">
      <div class="claim-head">
        <span>{(claim.kind === "rob" ? t("robPrompt", who, "") : t("claimPrompt", who, ""))}</span>
        <TileView t={claim.tile} size="meld" latest />
        {seconds !== null ? <Countdown seconds={seconds} warn={3} /> : null}
      </div>
      <div class="claim-options">
        {choices.map((c) => (
          <button type="button" class={`claim ${c.cls}`} data-action={c.action.a} data-low={c.action.a === "chow" ? (c.action as any).low : undefined}
            onClick={() => app.act(c.action)}>
            <span class="label">{c.label}</span>
            {c.tiles ? (
              <span class="tiles">
                {c.tiles.map((x) => <TileView t={x} size="small" latest={x === claim.tile} />)}
              </span>
            ) : null}
            {c.key === "H" ? <kbd>↵</kbd> : null}
            <kbd>{c.key}</kbd>
          </button>
        ))}
      </div>
    </div>
  );
}

export { POS };
