// The lobby's public lists (rooms, tournaments): their view, kept in AppState and reduced by state.ts,
// and the one controller both use in app.ts.

/** A public list the server pages and searches (``rooms``, ``tournaments``: server/listing.py): what
 * we ask for, and what the page on screen answers. Every ask carries ``q`` and ``page``, so the lobby's
 * own refreshes keep both. */
export interface ListView {
  q: string; // the search as typed
  page: number; // the page asked for, from 0
  asked: number | null; // the request id of the latest ask: answers to older ones are stale
  askedQ: string; // the search that ask sent
  shownQ: string; // the search the page on screen answers
  pages: number;
  total: number;
}

export const MAX_QUERY = 40; // characters the server takes in ``q`` (server/listing.py)

export function emptyList(): ListView {
  return { q: "", page: 0, asked: null, askedQ: "", shownQ: "", pages: 1, total: 0 };
}

/** The search as the server takes it: trimmed (it ignores the spaces around it), at most 40 characters. */
export function listQuery(q: string): string {
  return q.trim().slice(0, MAX_QUERY).trim();
}

/** A new search starts at the first page. */
export function listSearch(l: ListView, q: string): ListView {
  return listQuery(q) === listQuery(l.q) ? { ...l, q } : { ...l, q, page: 0 };
}

export function listPage(l: ListView, page: number): ListView {
  return { ...l, page: Math.max(0, Math.min(page, l.pages - 1)) };
}

/** The command's fields for the page and search ``l`` wants (none: the first page of everything). */
export function listFields(l: ListView): { q?: string; page?: number } {
  const q = listQuery(l.q);
  return { ...(q ? { q } : {}), ...(l.page ? { page: l.page } : {}) };
}

/** ``l`` asked again under request id ``id``. */
export function listAsked(l: ListView, id: number): ListView {
  return { ...l, asked: id, askedQ: listQuery(l.q) };
}

/** An answer, taken unless it is stale (a later ask is on its way) or is an empty page past the end
 * (rooms closed since): then ``l`` falls back to the last page, and the list on screen stays until the
 * app's ask for that one is answered (``listFellBack``). */
export function listAnswer(l: ListView, msg: { re?: number; page?: number; pages?: number; total?: number }):
  { list: ListView; take: boolean } {
  if (typeof msg.re === "number" && l.asked !== null && msg.re !== l.asked) return { list: l, take: false };
  const pages = Math.max(1, msg.pages ?? 1);
  const page = msg.page ?? 0;
  const total = msg.total ?? 0;
  if (page >= pages && page > 0) return { list: { ...l, page: pages - 1, pages, total }, take: false };
  return { list: { ...l, page, pages, total, shownQ: typeof msg.re === "number" ? l.askedQ : l.shownQ }, take: true };
}

/** Whether ``msg``, the answer to our latest ask, found its page gone: ``l`` (after it) wants another. */
export function listFellBack(l: ListView, msg: { re?: number; page?: number }): boolean {
  return typeof msg.re === "number" && msg.re === l.asked && (msg.page ?? 0) !== l.page;
}

/** What a PublicList needs of the app: its view in the state, and a way to ask the server. */
export interface ListHost {
  view(): ListView;
  put(l: ListView): void;
  /** Sends the list's command with these fields: its request id, or null when nothing was sent. */
  ask(fields: { q?: string; page?: number }): number | null;
}

/** One public list's refresh, search and page; every ask keeps the search and the page. */
export class PublicList {
  constructor(private host: ListHost) {}

  /** The page and search shown, asked again (the lobby's timer, a reconnect, the refresh button). */
  refresh(): void {
    const id = this.host.ask(listFields(this.host.view()));
    if (id !== null) this.host.put(listAsked(this.host.view(), id));
  }

  /** A search, from the first page; asked only when it differs from the last (not for a space). */
  search(q: string): void {
    const before = this.host.view();
    this.host.put(listSearch(before, q));
    if (listQuery(q) !== listQuery(before.q)) this.refresh();
  }

  page(page: number): void {
    this.host.put(listPage(this.host.view(), page));
    this.refresh();
  }

  /** After the state took ``msg``, an answer: its page was gone (items vanished), so the last one. */
  answered(msg: { re?: number; page?: number }): void {
    if (listFellBack(this.host.view(), msg)) this.refresh();
  }
}
