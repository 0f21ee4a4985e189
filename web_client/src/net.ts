// The websocket to the server: binary msgpack frames (@msgpack/msgpack), request ids, and
// reconnection with backoff. The connection says nothing about rooms: the app signs in again with
// its token on every (re)connection and the server sends the room's snapshot.

import { decode, encode } from "@msgpack/msgpack";
import type { Command, ServerMessage } from "./wire.gen";

/** A message from the server (server/wire.py). */
export type Msg = ServerMessage;
export type Status = "connecting" | "open" | "closed" | "stopped";

export interface ConnectionHandlers {
  onOpen(): void;
  onMessage(msg: Msg): void;
  onStatus(status: Status): void;
}

export function encodeFrame(msg: Command): Uint8Array {
  return encode(msg, { ignoreUndefined: true });
}

export function decodeFrame(data: ArrayBuffer | Uint8Array): Msg {
  const msg = decode(data instanceof Uint8Array ? data : new Uint8Array(data)) as Msg | null;
  if (!msg || typeof msg !== "object" || typeof msg.t !== "string") throw new TypeError("not a message");
  return msg;
}

/** Backoff before reconnection attempt ``n`` (0-based): 0.5 s doubling to 8 s, with jitter. */
export function backoff(n: number, random: () => number = Math.random): number {
  const base = Math.min(8000, 500 * 2 ** n);
  return Math.round(base * (0.75 + 0.5 * random()));
}

export function wsUrl(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/ws`;
}

export class Connection {
  private ws: WebSocket | null = null;
  private attempts = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ping: ReturnType<typeof setInterval> | null = null;
  private nextId = 1;
  private waiting = new Map<number, (msg: Msg) => void>();
  private stopped = false;
  status: Status = "closed";

  constructor(private url: string, private h: ConnectionHandlers) {}

  connect(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopped = false;
    const ws = new WebSocket(this.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    this.setStatus("connecting");
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.setStatus("open");
      this.h.onOpen();
      if (this.ping) clearInterval(this.ping);
      // The server closes connections idle for 30 minutes; a ping every minute keeps a quiet lobby open.
      this.ping = setInterval(() => this.send({ t: "ping" }), 60_000);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      let msg: Msg;
      try {
        msg = typeof ev.data === "string" ? JSON.parse(ev.data) : decodeFrame(ev.data);
      } catch {
        return;
      }
      const re = msg.re;
      if (typeof re === "number" && this.waiting.has(re)) {
        const resolve = this.waiting.get(re)!;
        this.waiting.delete(re);
        resolve(msg);
      }
      this.h.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.ping) clearInterval(this.ping);
      this.ping = null;
      for (const resolve of this.waiting.values()) resolve({ t: "error", code: "client/disconnected", message: "disconnected" });
      this.waiting.clear();
      if (this.stopped) {
        this.setStatus("stopped");
        return;
      }
      // The next attempt is scheduled before anybody hears of the close: nothing a listener does can
      // leave the connection down for good.
      const delay = backoff(this.attempts++);
      this.timer = setTimeout(() => this.connect(), delay);
      this.setStatus("closed");
    };
  }

  /** Stay disconnected (another window took over); ``connect()`` starts again. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.ws?.close();
    if (!this.ws) this.setStatus("stopped");
  }

  /** Drop the socket as a network failure would (tests, and the "reconnect now" button). */
  drop(): void {
    this.ws?.close();
  }

  send(msg: Command): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encodeFrame(msg) as Uint8Array<ArrayBuffer>);
    return true;
  }

  /** The id the last ``request`` used. */
  lastId(): number {
    return this.nextId - 1;
  }

  /** Send with an ``id``; resolves with the reply that echoes it as ``re`` (or an error). */
  request(msg: Command): Promise<Msg> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (!this.send({ ...msg, id })) {
        resolve({ t: "error", code: "client/offline", message: "not connected" });
        return;
      }
      this.waiting.set(id, resolve);
    });
  }

  private setStatus(s: Status): void {
    this.status = s;
    this.h.onStatus(s);
  }
}
