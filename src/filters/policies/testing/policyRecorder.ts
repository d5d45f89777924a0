// Test support for the policies (not re-exported): a PolicyHost that records every emission
// and drop together with the index of the input that caused it.
import type { Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import type { CombinerPolicy, PolicyHost } from "../CombinerPolicy";

/** One recorded emission. */
export interface TupleEvent<T> {
  readonly kind: "tuple";
  /** Index of the input whose `add` emitted it. */
  readonly after: number;
  readonly stamps: Stamp[];
  readonly items: T[];
}

/** One recorded drop. */
export interface DropRecord<T> {
  readonly kind: "drop";
  /** Index of the input whose `add` caused it (-1 for drops outside `add`, e.g. `reset(true)`). */
  readonly after: number;
  readonly slot: number;
  readonly stamp: Stamp;
  readonly item: T;
  readonly reason: DropReason;
}

/** A recorded event, in the order it happened. */
export type PolicyEvent<T> = TupleEvent<T> | DropRecord<T>;

/** Records emissions and drops; `current` is the index of the input being added. */
export class Recorder<T> implements PolicyHost<T> {
  /** Every event, in order. */
  public readonly events: PolicyEvent<T>[] = [];
  /** Index of the input being fed (set by {@link feed}). */
  public current = -1;
  /** Called on each emission before recording returns; may throw (to test propagation). */
  public onEmit?: (items: T[], stamps: Stamp[]) => void;

  public emit(items: T[], stamps: Stamp[]): void {
    this.events.push({ kind: "tuple", after: this.current, stamps, items });
    this.onEmit?.(items, stamps);
  }

  public drop(slot: number, stamp: Stamp, item: T, reason: DropReason): void {
    this.events.push({ kind: "drop", after: this.current, slot, stamp, item, reason });
  }

  /** The emissions only. */
  public get tuples(): TupleEvent<T>[] {
    return this.events.filter((e): e is TupleEvent<T> => e.kind === "tuple");
  }

  /** The drops only. */
  public get drops(): DropRecord<T>[] {
    return this.events.filter((e): e is DropRecord<T> => e.kind === "drop");
  }
}

/** One test input: slot, stamp and payload. */
export type Input<T> = readonly [slot: number, stamp: Stamp, item: T];

/** Binds a Recorder to `policy` and feeds `inputs` in order (arrival = stamp). */
export function feed<T>(
  policy: CombinerPolicy<T>,
  inputs: readonly Input<T>[],
  recorder = new Recorder<T>(),
): Recorder<T> {
  policy.bind(recorder);
  for (const [slot, stamp, item] of inputs) {
    recorder.current++;
    policy.add(slot, stamp, item, stamp);
  }
  return recorder;
}


/** Seconds + nanoseconds as integer ns (ROS `Time(sec, nsec)` on base 0). */
export function t(sec: number, nsec = 0): Stamp {
  return sec * 1_000_000_000 + nsec;
}

/** ROS-style `sec.nsec` rendering of a base-0 stamp, e.g. 99000000002 → "99.2" (99 s + 2 ns). */
export function secNsec(stamp: Stamp): string {
  const sec = Math.floor(stamp / 1_000_000_000);
  return `${sec}.${stamp - sec * 1_000_000_000}`;
}

/**
 * Compact one-line form of each event, for exact comparisons in tests:
 * `"5 emit 100.0 100.1 100.2 | 1 1 1"` or `"4 drop s0 99.2 not-selected | 0"`.
 */
export function describeEvents<T>(
  events: readonly PolicyEvent<T>[],
  fmt: (stamp: Stamp) => string = secNsec,
): string[] {
  return events.map((e) =>
    e.kind === "tuple"
      ? `${e.after} emit ${e.stamps.map(fmt).join(" ")} | ${e.items.map(String).join(" ")}`
      : `${e.after} drop s${e.slot} ${fmt(e.stamp)} ${e.reason} | ${String(e.item)}`,
  );
}

/**
 * What `policy` does with `inputs` (fed by {@link feed} to a fresh Recorder), one line per event
 * as {@link describeEvents} writes it, stamps rendered by `fmt`.
 */
export function eventsOf<T>(
  policy: CombinerPolicy<T>,
  inputs: readonly Input<T>[],
  fmt: (stamp: Stamp) => string = secNsec,
): string[] {
  return describeEvents(feed(policy, inputs).events, fmt);
}

/** A call of `policy.add(slot, stamp, 0, arrival)` to hand to `expect(…).toThrow`. */
export function adding(policy: CombinerPolicy<number>, slot: number, stamp: Stamp, arrival: Stamp): () => void {
  return () => {
    policy.add(slot, stamp, 0, arrival);
  };
}

/**
 * What `policy` does with `inputs` (fed by {@link feed} to `recorder`) and then with
 * `reset(true)`, which reports what it still held: one line per event as {@link describeEvents}
 * writes it, stamps rendered by `fmt`.
 */
export function eventsThenReset<T>(
  policy: CombinerPolicy<T>,
  inputs: readonly Input<T>[],
  fmt: (stamp: Stamp) => string = secNsec,
  recorder = new Recorder<T>(),
): string[] {
  feed(policy, inputs, recorder);
  policy.reset(true);
  return describeEvents(recorder.events, fmt);
}

/**
 * The lines {@link eventsThenReset} ends with for what an oracle still holds: per slot, its
 * `[stamp, item]` pairs in order, each a `reset` drop after input `after`, stamps as `String`.
 */
export function resetLines<T>(held: readonly Iterable<readonly [Stamp, T]>[], after: number): string[] {
  const lines: string[] = [];
  held.forEach((pairs, slot) => {
    for (const [stamp, item] of pairs) {
      lines.push(`${after} drop s${slot} ${stamp} reset | ${String(item)}`);
    }
  });
  return lines;
}
