import { ComponentChildren, createContext } from "preact";
import { useContext, useEffect, useLayoutEffect, useReducer, useRef, useState } from "preact/hooks";
import type { App } from "../app";
import type { Meld } from "../game";
import { ListView, MAX_QUERY, PublicList } from "../lists";
import { lang, t } from "../i18n";
import { Tile, tileLabel, tileName } from "../tiles";

export const AppContext = createContext<App>(null as unknown as App);

export function useApp(): App {
  return useContext(AppContext);
}

/** Re-render whenever the app's state or preferences change. */
export function useAppState() {
  const app = useApp();
  const [, force] = useReducer((x: number, _: number) => x + 1, 0);
  const rendered = app.version;
  // A layout effect subscribes before the first paint; ``rendered`` catches what changed even earlier.
  useLayoutEffect(() => app.subscribe(() => force(0), rendered), [app]);
  return app.state;
}

/** The client's clock in seconds, refreshed every ``ms`` while mounted. */
export function useNow(ms = 250): number {
  const [now, setNow] = useState(Date.now() / 1000);
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now() / 1000), ms);
    return () => clearInterval(id);
  }, [ms]);
  return now;
}

export type TileSize = "hand" | "meld" | "pond" | "small";

export interface TileProps {
  t?: Tile;
  size?: TileSize;
  back?: boolean;
  latest?: boolean;
  selected?: boolean;
  marked?: boolean;
  claimed?: boolean;
  dim?: boolean;
  onClick?: () => void;
  extra?: string;
}

/** One tile: a CSS body with the SVG face as a background (tiles.ts `faceStylesheet`). */
export function TileView(p: TileProps) {
  const size = p.size ?? "meld";
  const cls = ["tile", size];
  if (p.back || p.t === undefined) cls.push("back");
  else cls.push(`f${p.t}`);
  if (p.latest) cls.push("latest");
  if (p.selected) cls.push("selected");
  if (p.marked) cls.push("marked");
  if (p.claimed) cls.push("claimed");
  if (p.dim) cls.push("dim");
  if (p.onClick) cls.push("clickable");
  if (p.extra) cls.push(p.extra);
  const label = p.back || p.t === undefined ? (lang() === "zh" ? "牌背" : "tile back") : tileLabel(p.t, lang());
  const name = p.back || p.t === undefined ? undefined : tileName(p.t);
  if (p.onClick) {
    return <button type="button" class={cls.join(" ")} aria-label={label} title={label} data-tile={name} onClick={p.onClick} />;
  }
  return <span class={cls.join(" ")} role="img" aria-label={label} title={label} data-tile={name} />;
}

export function meldTiles(m: Meld): (Tile | undefined)[] {
  if (m.kind === "chow") return [m.tile!, m.tile! + 1, m.tile! + 2];
  return Array(m.kind === "kong" ? 4 : 3).fill(m.tile);
}

/** A declared set; a concealed kong shows its outer tiles face down (all four to others). */
export function MeldView({ m, size = "meld" }: { m: Meld; size?: TileSize }) {
  const tiles = meldTiles(m);
  return (
    <span class={`set ${m.kind}${m.concealed ? " concealed" : ""}`} data-meld={m.kind}>
      {tiles.map((tile, i) => {
        const back = tile === undefined || (m.concealed && (i === 0 || i === 3));
        const claimed = m.claimed !== undefined && tile === m.claimed && tiles.indexOf(tile) === i;
        return <TileView key={i} t={tile} size={size} back={back} claimed={claimed} />;
      })}
    </span>
  );
}

export function Tiles({ tiles, size = "small" }: { tiles: readonly Tile[]; size?: TileSize }) {
  return (
    <span class="tiles">
      {tiles.map((x, i) => <TileView key={i} t={x} size={size} />)}
    </span>
  );
}

export function windName(w: number): string {
  return t(`wind${w}` as "wind0");
}

/** One character for a seat's chip: 东 / E. */
export function windShort(w: number): string {
  return t(`windShort${w}` as "windShort0");
}

export function Countdown({ seconds, bank, warn = 5 }: { seconds: number; bank?: number; warn?: number }) {
  const s = Math.ceil(seconds);
  return (
    <span class={`countdown${seconds <= warn ? " warn" : ""}`} data-testid="countdown">
      <span class="secs">{t("seconds", s)}</span>
      {bank !== undefined && bank > 0 ? <span class="bank">{t("timeBank", Math.ceil(bank))}</span> : null}
    </span>
  );
}

const SEARCH_PAUSE = 300; // ms after the last keystroke before a search is sent
const SEARCH_FROM = 10; // entries a list holds before it offers a search box

/** Whether a public list offers its search box: it is long, or a search is on; once shown it stays
 * (a list that shrinks while one types must not take the box away). */
function useSearchable(l: ListView): boolean {
  const shown = useRef(false);
  shown.current ||= l.total > SEARCH_FROM || l.pages > 1 || !!l.q.trim() || !!l.shownQ;
  return shown.current;
}

/** A search over a public list: sent as one types (after a pause), at once on Enter, cleared by ×. */
function ListSearch({ list, onSearch, placeholder, name }: {
  list: ListView; onSearch: (q: string) => void; placeholder: string; name: string;
}) {
  const [text, setText] = useState(list.q);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (text === list.q) return;
    const id = setTimeout(() => onSearch(text), SEARCH_PAUSE);
    return () => clearTimeout(id);
  }, [text]);
  const clear = () => {
    setText("");
    onSearch("");
    input.current?.focus();
  };
  return (
    <form class="list-search" role="search" onSubmit={(e) => { e.preventDefault(); onSearch(text); }}>
      <input
        ref={input} type="search" name={name} value={text} maxLength={MAX_QUERY} placeholder={placeholder}
        aria-label={placeholder} autoComplete="off" enterKeyHint="search"
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => { if (e.key === "Escape" && text) { e.preventDefault(); clear(); } }}
      />
      {text ? (
        <button type="button" class="clear" data-action="clear-search" aria-label={t("clearSearch")} title={t("clearSearch")}
          onClick={clear}>×</button>
      ) : null}
    </form>
  );
}

/** Previous / next through a paged list, with "page X of Y"; nothing when it is one page. */
function Pager({ list, onPage }: { list: ListView; onPage: (page: number) => void }) {
  const nav = useRef<HTMLElement>(null);
  if (list.pages <= 1) return null;
  const page = Math.min(list.page, list.pages - 1);
  const go = (p: number) => {
    onPage(p);
    // From the bottom of a long page, the next one is read from its top.
    const top = nav.current?.closest("section");
    if (top && top.getBoundingClientRect().top < 0) top.scrollIntoView({ block: "start" });
  };
  return (
    <nav class="pager" ref={nav} data-testid="pager" data-page={page} data-pages={list.pages}>
      <button type="button" data-action="prev-page" disabled={page <= 0} onClick={() => go(page - 1)}>‹ {t("prevPage")}</button>
      <span class="muted" data-testid="page-of">{t("pageOf", page + 1, list.pages)}</span>
      <button type="button" data-action="next-page" disabled={page >= list.pages - 1} onClick={() => go(page + 1)}>{t("nextPage")} ›</button>
    </nav>
  );
}

/** A public list's card (the lobby's rooms, tournaments): its title and refresh, the search box once the
 * list is long, its page or why it is empty (nothing at all, or nothing matching the search), the pager. */
export function ListCard({ ctl, list, empty, title, testid, cls, search, placeholder, noMatch, none, children }: {
  ctl: PublicList; list: ListView; empty: boolean; title: string; testid: string; cls?: string;
  search: string; placeholder: string; noMatch: (q: string) => string; none: ComponentChildren; children: ComponentChildren;
}) {
  const searchable = useSearchable(list);
  return (
    <section class={cls ? `card ${cls}` : "card"} data-testid={testid}>
      <div class="row between">
        <h2>{title}</h2>
        <button type="button" class="link" onClick={() => ctl.refresh()}>{t("refresh")}</button>
      </div>
      {searchable ? <ListSearch list={list} name={search} placeholder={placeholder} onSearch={(q) => ctl.search(q)} /> : null}
      {!empty ? children : list.shownQ ? <p class="muted" data-testid="no-match">{noMatch(list.shownQ)}</p> : none}
      <Pager list={list} onPage={(p) => ctl.page(p)} />
    </section>
  );
}
