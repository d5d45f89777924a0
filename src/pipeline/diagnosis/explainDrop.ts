import type { StampTrace } from "./StampTrace";
import { msText } from "./format";
import { fateReason, runTrace, type TraceRun } from "./runTrace";
import type { DropReason } from "../../filters/DropReason";
import { policyDescriptor } from "../../filters/policies/descriptors";
import { lowerBound, lowerBoundBy } from "../../time";
import type { PolicyConfig } from "../config";

/** A message of another slot, as it bears on a drop. */
export interface DropPartner {
  readonly slot: number;
  readonly topic: string;
  /** Stamp of that slot's message nearest to the dropped one (absolute ns), or null if none. */
  readonly stamp: string | null;
  /** |its stamp − the dropped stamp| (ns). */
  readonly distance: number | null;
  /** Its receive time minus the moment of the drop (ns); > 0: it came only after the drop. */
  readonly arrivedAfterDrop: number | null;
}

/** What decided one drop (see `DropExplainer`). */
export interface DropExplanation {
  /** Trace event index of the dropped message. */
  readonly event: number;
  readonly slot: number;
  readonly topic: string;
  readonly stamp: string | null;
  readonly reason: DropReason;
  /** The event whose arrival caused the drop, and its topic. */
  readonly decidedBy: { readonly event: number; readonly topic: string } | null;
  /** not-selected: the set that was chosen instead, its pivot and the winner on this slot. */
  readonly chosen?: {
    readonly stamps: readonly (string | null)[];
    /** Slot of the set's newest stamp (the pivot the set was matched around). */
    readonly pivotSlot: number;
    readonly winnerStamp: string | null;
    /** How much closer to the pivot the winner is than the dropped message (ns). */
    readonly margin: number;
  };
  /** The limit that removed it (queue size, maxAge, timespan limit) with its value, when one did. */
  readonly limit?: { readonly parameter: string; readonly value: unknown; readonly measured?: number };
  /** The nearest message of each other slot. */
  readonly partners: readonly DropPartner[];
  readonly message: string;
}

const LIMITS: Partial<Record<DropReason, readonly string[]>> = {
  "queue-overflow": ["queueSize", "maxQueueSize"],
  "max-age": ["maxAge"],
  "max-timespan": ["maxTimespan", "maxIntervalDuration", "slop", "epsilon"],
};

/**
 * Explains drops by an instrumented re-run of the policy on the trace (one `runTrace` with
 * per-event fates), so the policies' hot paths carry no cost when nothing is explained. The
 * explanation names the event that decided the drop, the set chosen instead (its pivot, the
 * winning message on the dropped one's slot and by how much it won), the limit that removed it
 * and, for every other slot, the nearest message and when it arrived relative to the drop.
 */
export class DropExplainer {
  readonly #trace: StampTrace;
  readonly #policy: PolicyConfig;
  readonly #run: TraceRun;
  /** Per slot: event indices sorted by stamp. */
  readonly #bySlot: Int32Array[];

  public constructor(trace: StampTrace, policy: PolicyConfig) {
    this.#trace = trace;
    this.#policy = policy;
    this.#run = runTrace(policy, trace, { record: true });
    const lists: number[][] = Array.from({ length: trace.slots }, () => []);
    for (let i = 0; i < trace.length; i++) {
      const s = trace.stamp(i);
      if (s === s) {
        lists[trace.slot(i)]!.push(i);
      }
    }
    this.#bySlot = lists.map((l) => Int32Array.from(l.sort((a, b) => trace.stamp(a) - trace.stamp(b))));
  }

  /** The run the explanations come from (fates recorded). */
  public get run(): TraceRun {
    return this.#run;
  }

  /** Trace indices of the dropped events, in the order the drops happened (drops.jsonl's sync lines). */
  public get drops(): Int32Array {
    return this.#run.dropOrder!;
  }

  /** The event of `slot` with this absolute stamp (first one in trace order), or -1. */
  public find(slot: number, stamp: string): number {
    const t = this.#trace;
    for (let i = 0; i < t.length; i++) {
      if (t.slot(i) === slot && t.stamp(i) === t.stamp(i) && t.base.format(t.stamp(i)) === stamp) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The dropped event of `slot` with this stamp on the trace's time base (relative ns, as the
   * pipeline reports drops), the first in trace order; -1 when no such message was dropped.
   */
  public findDropped(slot: number, stamp: number): number {
    const t = this.#trace;
    for (let i = 0; i < t.length; i++) {
      if (t.slot(i) === slot && t.stamp(i) === stamp && fateReason(this.#run.fates![i]!) != undefined) {
        return i;
      }
    }
    return -1;
  }

  /** Why event `i` was dropped, or undefined when it was not (it joined a set or is held). */
  public explain(i: number): DropExplanation | undefined {
    const t = this.#trace;
    const run = this.#run;
    const reason = fateReason(run.fates![i]!);
    if (reason == undefined) {
      return undefined;
    }
    const slot = t.slot(i);
    const stamp = t.stamp(i);
    const fmt = (s: number): string | null => (s === s ? t.base.format(s) : null);
    // In the message, a stamp reads as the panel and `ros2 topic echo` show it; the fields keep JSON's form.
    const secondsOf = (s: number): string => (s === s ? t.base.formatSeconds(s) : "none");
    const at = run.droppedAfter![i]!;
    const dropTime = at >= 0 ? t.arrival(at) : t.arrival(i);
    const partners: DropPartner[] = [];
    for (let k = 0; k < t.slots; k++) {
      if (k === slot) {
        continue;
      }
      const j = stamp === stamp ? this.#nearest(k, stamp) : -1;
      partners.push({
        slot: k,
        topic: t.topics[k]!,
        stamp: j >= 0 ? fmt(t.stamp(j)) : null,
        distance: j >= 0 ? Math.abs(t.stamp(j) - stamp) : null,
        arrivedAfterDrop: j >= 0 ? t.arrival(j) - dropTime : null,
      });
    }
    const base = {
      event: i,
      slot,
      topic: t.topics[slot]!,
      stamp: fmt(stamp),
      reason,
      decidedBy: at >= 0 ? { event: at, topic: t.topics[t.slot(at)]! } : null,
      partners,
    };
    const limitName = (LIMITS[reason] ?? []).find((n) => n in (this.#policy as unknown as Record<string, unknown>));
    const limitValue = limitName == undefined ? undefined : (this.#policy as unknown as Record<string, unknown>)[limitName];
    const late = partners.filter((p) => p.arrivedAfterDrop != undefined && p.arrivedAfterDrop > 0);
    const lateText = late.map((p) => `${p.topic}'s nearest stamp (${msText(p.distance!)} away) arrived ${msText(p.arrivedAfterDrop!)} after the drop`).join("; ");
    switch (reason as string) {
      case "not-selected": {
        const set = this.#setAfter(at);
        if (set < 0) {
          break;
        }
        const members = this.#members(set);
        let pivotSlot = 0;
        for (let k = 1; k < members.length; k++) {
          if (t.stamp(members[k]!) > t.stamp(members[pivotSlot]!)) {
            pivotSlot = k;
          }
        }
        const pivot = t.stamp(members[pivotSlot]!);
        const winner = t.stamp(members[slot]!);
        const margin = Math.abs(stamp - pivot) - Math.abs(winner - pivot);
        return {
          ...base,
          chosen: { stamps: members.map((m) => fmt(t.stamp(m))), pivotSlot, winnerStamp: fmt(winner), margin },
          message:
            `not selected: the set emitted when ${t.topics[t.slot(at)]!} arrived was matched around the pivot on ${t.topics[pivotSlot]!} (stamp ${secondsOf(pivot)}); ` +
            `it took ${secondsOf(winner)} on ${t.topics[slot]!}, ${msText(Math.abs(winner - pivot))} from the pivot, against ${msText(Math.abs(stamp - pivot))} for this message (${msText(margin)} ${margin >= 0 ? "closer" : "farther, but this message was already out of the search window"}).`,
        };
      }
      case "queue-overflow":
        return {
          ...base,
          ...(limitName == undefined ? {} : { limit: { parameter: limitName, value: limitValue } }),
          message: `queue overflow: ${t.topics[slot]!}'s queue${limitName == undefined ? "" : ` (${limitName} ${limitText(limitName, limitValue)})`} was full when a newer message arrived, and this was the oldest${lateText ? `; ${lateText}` : "; no partner was missing, the set was not complete in time"}.`,
        };
      case "max-age": {
        let newest = -Infinity;
        for (let j = 0; j <= Math.max(at, i); j++) {
          const s = t.stamp(j);
          if (s === s && s > newest) {
            newest = s;
          }
        }
        return {
          ...base,
          limit: { parameter: "maxAge", value: limitValue ?? "1s", measured: newest - stamp },
          message: `max age: the newest stamp was ${msText(newest - stamp)} newer than this one, more than maxAge ${limitValue == undefined ? "1 s (the default)" : limitText("maxAge", limitValue)}${lateText ? `; ${lateText}` : ""}.`,
        };
      }
      case "max-timespan": {
        const span = Math.max(0, ...partners.map((p) => p.distance ?? 0));
        return {
          ...base,
          ...(limitName == undefined ? {} : { limit: { parameter: limitName, value: limitValue, measured: span } }),
          message: `timespan limit: the nearest stamps of the other inputs lie up to ${msText(span)} from this one, more than ${limitName ?? "the limit"} ${limitText(limitName, limitValue)} allows.`,
        };
      }
      case "out-of-order-reset": {
        let prev = -Infinity;
        for (let j = 0; j < i; j++) {
          if (t.slot(j) === slot && t.stamp(j) > prev) {
            prev = t.stamp(j);
          }
        }
        return {
          ...base,
          message:
            prev > stamp
              ? `out-of-order reset: this stamp is ${msText(prev - stamp)} older than one already received on ${t.topics[slot]!}, so the policy reset and discarded what it held.`
              : `out-of-order reset: a stamp on another input went backwards and the policy discarded what it held, this message included.`,
        };
      }
      case "no-header":
        return {
          ...base,
          message:
            `no header: this ${t.topics[slot]!} message has no header stamp and ${this.#policy.type} matches by header stamps; ` +
            (hasParameter(this.#policy, "allowHeaderless")
              ? `allowHeaderless true matches headerless messages by their receive time (or "stamp": "receive" on ${t.topics[slot]!}).`
              : `"stamp": "receive" on ${t.topics[slot]!} matches it by its receive time.`),
        };
      case "zero-stamp":
        return { ...base, message: `zero stamp: this message's header stamp is 0 (never set by its publisher), so the pipeline drops it before the policy.` };
      case "invalid-stamp":
        return {
          ...base,
          message: `stamp off the time base: this message's header stamp lies more than 52 days from the first stamps (another clock, such as sim time against wall time) or is not a time, so the pipeline drops it before the policy.`,
        };
      case "undecodable":
        return { ...base, message: `undecodable: this message's bytes did not decode, so it never reached the policy.` };
      default:
        break;
    }
    const what =
      reason === "not-selected"
        ? `not selected: dropped while the policy searched for a set after ${t.topics[t.slot(Math.max(0, at))]!} arrived; no set was emitted after it`
        : reason;
    return { ...base, message: `${what}${lateText ? `; ${lateText}` : ""}.` };
  }

  #nearest(slot: number, stamp: number): number {
    const list = this.#bySlot[slot]!;
    const t = this.#trace;
    const lo = lowerBoundBy(list.length, (i) => t.stamp(list[i]!), stamp);
    let best = -1;
    for (const k of [lo - 1, lo]) {
      if (k >= 0 && k < list.length && (best < 0 || Math.abs(t.stamp(list[k]!) - stamp) < Math.abs(t.stamp(best) - stamp))) {
        best = list[k]!;
      }
    }
    return best;
  }

  /** The first set emitted at or after event `at`, or -1. */
  #setAfter(at: number): number {
    const after = this.#run.emittedAfter!;
    const lo = lowerBound(after, at);
    return lo < after.length ? lo : -1;
  }

  #members(set: number): number[] {
    const slots = this.#trace.slots;
    return Array.from(this.#run.members!.subarray(set * slots, (set + 1) * slots));
  }
}

/** A limit's value for a sentence: durations in ms, counts as they are, null as unlimited. */
function limitText(name: string | undefined, value: unknown): string {
  if (value == undefined) {
    return "unlimited";
  }
  if (typeof value !== "number") {
    return "";
  }
  return name === "queueSize" || name === "maxQueueSize" ? String(value) : msText(value);
}

/** Whether the policy's type has a parameter of that name (by its descriptor). */
function hasParameter(policy: PolicyConfig, name: string): boolean {
  return (policyDescriptor(policy.type)?.parameters ?? []).some((p) => p.name === name);
}
