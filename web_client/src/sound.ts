// Table sounds, synthesised with the Web Audio API (no audio files): a discard's click, a claim's
// knock, a win's chord and a chime when it becomes your turn. The switch is remembered in localStorage;
// it starts on for people and off for automated browsers (navigator.webdriver), so test runs are quiet.

import type { GameEvent, GameView } from "./game";
import { options } from "./game";

export type Cue = "discard" | "claim" | "win" | "turn";

const KEY = "guobiao.sound";

/** One tone of a cue: frequency (Hz), start offset and length (s), peak gain, waveform. */
type Tone = [freq: number, at: number, len: number, gain: number, wave: OscillatorType];

const CUES: Record<Cue, Tone[]> = {
  discard: [[1400, 0, 0.05, 0.25, "triangle"], [700, 0.005, 0.06, 0.2, "square"]],
  claim: [[330, 0, 0.12, 0.3, "square"], [495, 0.09, 0.16, 0.3, "square"]],
  win: [[523, 0, 0.5, 0.22, "triangle"], [659, 0.1, 0.5, 0.22, "triangle"], [784, 0.2, 0.6, 0.22, "triangle"],
    [1047, 0.3, 0.7, 0.18, "sine"]],
  turn: [[880, 0, 0.12, 0.18, "sine"], [1175, 0.1, 0.18, 0.18, "sine"]],
};

/** The cues a game message sounds: each discard, each claimed set, a win, and the start of your turn. */
export function cuesFor(before: GameView | null, events: readonly GameEvent[], after: GameView | null): Cue[] {
  const out: Cue[] = [];
  for (const e of events) {
    if (e.t === "discard") out.push("discard");
    else if (e.t === "claim") out.push("claim");
    else if (e.t === "hand_end" && e.win) out.push("win");
  }
  if (after && myTurn(after) && !(before && myTurn(before) && before.seq === after.seq)) out.push("turn");
  return out;
}

function myTurn(g: GameView): boolean {
  const o = options(g.legal);
  return g.seat !== null && g.phase === "turn" && g.turn === g.seat && !!g.to_act && o.discards.size + o.readyDiscards.size > 0;
}

export class Sound {
  on: boolean;
  /** How many times each cue was played (synthesised), for the browser tests. */
  played: Record<Cue, number> = { discard: 0, claim: 0, win: 0, turn: 0 };
  private ctx: AudioContext | null = null;
  // Browsers let a page make sound only after the person touched it: before that no AudioContext is
  // made (it would stay suspended and warn in the console), and cues are skipped.
  private touched = false;

  constructor(private storage: Storage, automated: boolean) {
    const saved = storage.getItem(KEY);
    this.on = saved === "on" ? true : saved === "off" ? false : !automated;
    if (typeof window !== "undefined") {
      const touch = () => { this.touched = true; };
      window.addEventListener("pointerdown", touch, { once: true, capture: true });
      window.addEventListener("keydown", touch, { once: true, capture: true });
    }
  }

  set(on: boolean): void {
    this.on = on;
    this.storage.setItem(KEY, on ? "on" : "off");
    this.touched = true; // switched by a click or a key
    if (on) this.context()?.resume().catch(() => undefined);
  }

  private context(): AudioContext | null {
    if (this.ctx) return this.ctx;
    const Ctor = typeof window !== "undefined" ? window.AudioContext : undefined;
    if (!Ctor) return null;
    try {
      this.ctx = new Ctor();
    } catch {
      return null;
    }
    return this.ctx;
  }

  play(cue: Cue): void {
    if (!this.on || !this.touched) return;
    const ctx = this.context();
    if (!ctx) return;
    if (ctx.state === "suspended") ctx.resume().catch(() => undefined);
    const t0 = ctx.currentTime + 0.01;
    for (const [freq, at, len, peak, wave] of CUES[cue]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(peak, t0 + at + 0.008);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + len + 0.02);
    }
    this.played[cue]++;
  }
}
