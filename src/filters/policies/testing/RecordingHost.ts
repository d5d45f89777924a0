import type { DropReason } from "../../DropReason";
import type { CombinerPolicy, PolicyHost } from "../CombinerPolicy";

/** One recorded drop (test helper). */
export interface RecordedDrop<T> {
  slot: number;
  stamp: number;
  item: T;
  reason: DropReason;
  detail?: string;
}

/**
 * A PolicyHost that records every emitted set and every drop, in order (test helper for the
 * ros/ and python/ policy tests; not part of the public API).
 */
export class RecordingHost<T> implements PolicyHost<T> {
  /** Emitted stamp tuples, in emission order. */
  public readonly tuples: number[][] = [];
  /** Emitted item tuples, in emission order. */
  public readonly items: T[][] = [];
  /** Drops, in report order. */
  public readonly drops: RecordedDrop<T>[] = [];
  /** Emits and drops interleaved, as "emit"/"drop" markers with their index. */
  public readonly log: ("emit" | "drop")[] = [];

  public emit(items: T[], stamps: number[]): void {
    this.items.push(items);
    this.tuples.push(stamps);
    this.log.push("emit");
  }

  public drop(slot: number, stamp: number, item: T, reason: DropReason, detail?: string): void {
    this.drops.push(detail == undefined ? { slot, stamp, item, reason } : { slot, stamp, item, reason, detail });
    this.log.push("drop");
  }

  /** Number of messages accounted for (emitted members + drops). */
  public accounted(): number {
    let n = this.drops.length;
    for (const t of this.tuples) {
      n += t.length;
    }
    return n;
  }
}

/** A RecordingHost bound to `policy`: from now on it records what `policy` emits and drops. */
export function recordingHostOf<T>(policy: CombinerPolicy<T>): RecordingHost<T> {
  const host = new RecordingHost<T>();
  policy.bind(host);
  return host;
}
