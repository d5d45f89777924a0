/**
 * Workload W3 (shared/bench/W3.md): the reproducible three-topic stream used to time
 * synchronizers, and its epoch-shifted twin W3E.
 *
 * The generator follows W3.md literally: one mulberry32 PRNG (seed 42, raw uint32 output) drawn
 * once per message in merged *nominal* order (ties to the lowest topic index), jitter
 * `u mod 4000001 - 2000000`, per-topic strict monotonicity, delivery sorted by (stamp, topic).
 * Every W3 stamp is below 2^53, so plain numbers hold them exactly.
 */

import { Fnv64 } from "./Fnv64";
import { TimeBase } from "../src/time";

/** Topic names by index (A 30 Hz, B 100 Hz, C 50 Hz). */
export const W3_TOPICS = ["A", "B", "C"] as const;
/** Topic rates in Hz, by index. */
export const W3_RATES = [30, 100, 50] as const;
/** The offset of the nominal schedule, T0 = 1 s, in ns. */
export const W3_T0 = 1_000_000_000;
/** W3E's shift: 1,700,000,000 s, in whole seconds. */
export const W3E_OFFSET_SEC = 1_700_000_000;
/** W3E's shift in ns (1.7e18). */
export const W3E_OFFSET_NS = 1_700_000_000_000_000_000n;

const JITTER_SPAN = 4_000_001;
const JITTER_HALF = 2_000_000;
const RING = 64; // per-topic look-ahead; the ±2 ms window holds at most a few messages per topic

/**
 * Yields the W3 stream of `n` messages in delivery order with O(1) memory and no allocation per
 * message (used by the 10-million-message heap check, and by `generateW3`).
 *
 * Messages are drawn in nominal order and held per topic until no message still to be drawn can
 * sort before them: any future message has stamp >= its nominal time - 2 ms.
 *
 * ```ts
 * const s = new W3Stream(1000);
 * while (s.next()) use(s.topic, s.stamp);
 * ```
 */
export class W3Stream {
  /** Topic index of the current message (valid after `next()` returned true). */
  public topic = -1;
  /** Stamp in absolute ns of the current message (valid after `next()` returned true). */
  public stamp = 0;
  readonly #n: number;
  #drawn = 0;
  #rng = 42;
  readonly #k = [0, 0, 0];
  readonly #nextNominal = [W3_T0, W3_T0, W3_T0];
  readonly #prev = [-Infinity, -Infinity, -Infinity];
  readonly #ring = [new Float64Array(RING), new Float64Array(RING), new Float64Array(RING)];
  readonly #head = [0, 0, 0];
  readonly #size = [0, 0, 0];

  /** A stream of `n` messages in total (a non-negative safe integer). */
  public constructor(n: number) {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(`W3: N must be a non-negative integer, got ${n}`);
    }
    this.#n = n;
  }

  /** Advances to the next delivered message; false when the stream is exhausted. */
  public next(): boolean {
    for (;;) {
      let best = -1;
      let bestStamp = Infinity;
      for (let t = 0; t < 3; t++) {
        if (this.#size[t]! > 0) {
          const s = this.#ring[t]![this.#head[t]!]!;
          if (s < bestStamp) {
            best = t;
            bestStamp = s;
          }
        }
      }
      const exhausted = this.#drawn >= this.#n;
      if (best >= 0 && (exhausted || this.#minNextNominal() - JITTER_HALF > bestStamp)) {
        this.#head[best] = (this.#head[best]! + 1) % RING;
        this.#size[best]!--;
        this.topic = best;
        this.stamp = bestStamp;
        return true;
      }
      if (exhausted) {
        return false;
      }
      this.#drawOne();
    }
  }

  #minNextNominal(): number {
    const [a, b, c] = this.#nextNominal as [number, number, number];
    return Math.min(a, b, c);
  }

  #drawOne(): void {
    // Topic with the smallest next nominal time; strict < keeps ties on the lowest index.
    let t = 0;
    for (let i = 1; i < 3; i++) {
      if (this.#nextNominal[i]! < this.#nextNominal[t]!) {
        t = i;
      }
    }
    const nominal = this.#nextNominal[t]!;
    const u = this.#draw();
    let stamp = nominal + ((u % JITTER_SPAN) - JITTER_HALF);
    if (stamp <= this.#prev[t]!) {
      stamp = this.#prev[t]! + 1;
    }
    this.#prev[t] = stamp;
    if (this.#size[t] === RING) {
      throw new Error("W3Stream: look-ahead ring overflow (generator bug)");
    }
    this.#ring[t]![(this.#head[t]! + this.#size[t]!) % RING] = stamp;
    this.#size[t]!++;
    const k = ++this.#k[t]!;
    // k * 1e9 < 2^53 for every k reachable here, and the quotient's rounding error (< 0.1) cannot
    // cross an integer because the exact quotient is a multiple of 1/30: floor is exact.
    this.#nextNominal[t] = W3_T0 + Math.floor((k * 1_000_000_000) / W3_RATES[t]!);
    this.#drawn++;
  }

  /** mulberry32, raw uint32 output (W3.md). */
  #draw(): number {
    const a = (this.#rng = (this.#rng + 0x6d2b79f5) | 0);
    let z = Math.imul(a ^ (a >>> 15), a | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  }
}

/** The W3 stream materialized: `topics[i]`, `stamps[i]` of the i-th delivered message. */
export interface W3Data {
  /** Topic index (0 = A, 1 = B, 2 = C) per delivered message. */
  readonly topics: Uint8Array;
  /** Absolute stamp in ns per delivered message (exact: every W3 stamp is below 2^53). */
  readonly stamps: Float64Array;
}

/** Generates W3 with `n` messages, in delivery order (W3.md). */
export function generateW3(n: number): W3Data {
  const s = new W3Stream(n);
  const topics = new Uint8Array(n);
  const stamps = new Float64Array(n);
  for (let i = 0; s.next(); i++) {
    topics[i] = s.topic;
    stamps[i] = s.stamp;
  }
  return { topics, stamps };
}

/** W3E as ROS times: `secs[i]`, `nsecs[i]` of `stamps[i] + 1.7e18 ns`. */
export interface W3ESecNsec {
  readonly secs: Float64Array;
  readonly nsecs: Uint32Array;
}

/** Splits W3 stamps into W3E `{sec, nsec}` parts (stamp + 1,700,000,000 s), exactly. */
export function w3eSecNsec(stamps: Float64Array): W3ESecNsec {
  const secs = new Float64Array(stamps.length);
  const nsecs = new Uint32Array(stamps.length);
  for (let i = 0; i < stamps.length; i++) {
    const s = stamps[i]!;
    const sec = Math.floor(s / 1e9);
    secs[i] = W3E_OFFSET_SEC + sec;
    nsecs[i] = s - sec * 1e9;
  }
  return { secs, nsecs };
}

/**
 * The TimeBase a pipeline picks for W3E (from its first stamp): base 1,700,000,000 s, so a W3E
 * stamp's relative value equals the W3 stamp it came from.
 */
export function w3eTimeBase(): TimeBase {
  return TimeBase.forFirstStamp(W3E_OFFSET_NS);
}

/** W3.md's stream hash: fold `stamp * 4 + topic` for each delivered message, in order. */
export function streamHash(topics: Uint8Array, stamps: Float64Array): string {
  const h = new Fnv64();
  for (let i = 0; i < stamps.length; i++) {
    h.fold(stamps[i]! * 4 + topics[i]!);
  }
  return h.hex();
}

/**
 * W3.md's output hash over `count` values of `values` (tuple stamps laid out slot by slot, in
 * emission order), each shifted by `offsetNs` (0 for W3, `W3E_OFFSET_NS` for W3E; the values must
 * then be relative to that offset and non-negative).
 */
export function outputHash(values: Float64Array, count: number, offsetNs = 0n): string {
  const h = new Fnv64();
  const hi = Number(offsetNs >> 32n) >>> 0;
  const lo = Number(offsetNs & 0xffffffffn);
  for (let i = 0; i < count; i++) {
    h.foldOffset(hi, lo, values[i]!);
  }
  return h.hex();
}
