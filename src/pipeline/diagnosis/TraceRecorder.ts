import type { PipelineConfig } from "../config";
import type { PipelineContext, PipelineExtension, PipelineInput, PipelineMessageEvent } from "../types";
import { StampTrace } from "./StampTrace";
import { TimeBase } from "../../time";

/**
 * A pipeline extension that records the stamp trace of the pipeline's inputs (see StampTrace):
 * one event per input message and slot, in push order, exactly as the combiner receives them.
 * It reads only header stamps and receive times, so its cost is a few array writes per message.
 *
 * Until a header stamp fixes the pipeline's time base, input messages without one are recorded
 * on a base of their own receive times, so that a recording whose inputs never carry a header
 * stamp still has a trace (and a diagnosis: "stamped with their receive times they would give N
 * sets"). When the pipeline's base is fixed, those events move to it, ahead of every later
 * event, with their receive times placed as the pipeline places receive times (moved by its
 * receive clock offset, see `StampTrace.receiveClockOffsetSec`), or unknown when even so they lie
 * outside its window. `trace` is undefined until the first input message.
 */
export class TraceRecorder<M extends PipelineInput = PipelineInput> implements PipelineExtension<M> {
  public readonly name: string = "trace";
  readonly #topics: string[];
  readonly #capacity: number | undefined;
  #trace: StampTrace | undefined;
  /** Whether #trace is on a base of receive times, the pipeline's time base not fixed yet. */
  #provisional = false;
  /**
   * The events recorded on receive times, waiting (after `start`) for the first receive time the
   * pipeline places, which tells its receive clock offset.
   */
  #early: StampTrace | undefined;
  /** Whether the receive clock offset is known (from a message with a receive time). */
  #offsetKnown = false;

  public constructor(config: PipelineConfig, capacity?: number) {
    this.#topics = (config.inputs ?? []).map((i) => i.topic);
    this.#capacity = capacity;
  }

  /** The trace so far (undefined before the first input message). */
  public get trace(): StampTrace | undefined {
    this.#settleEarly();
    return this.#trace;
  }

  public start(context: PipelineContext): void {
    this.#early = this.#provisional ? this.#trace : undefined;
    this.#trace = new StampTrace(this.#topics, context.timeBase, this.#capacity);
    this.#provisional = false;
  }

  public message(event: PipelineMessageEvent<M>): void {
    if (!this.#provisional && !this.#offsetKnown && event.arrival != undefined && this.#trace != undefined) {
      // The first receive time the pipeline placed: what it took off (whole seconds, nsec kept).
      this.#offsetKnown = true;
      this.#trace.receiveClockOffsetSec = event.input.receiveTime.sec - this.#trace.base.toSecNsec(event.arrival).sec;
      this.#settleEarly();
    }
    if (event.slots.length === 0) {
      return;
    }
    let trace = this.#trace;
    let arrival = event.arrival ?? NaN;
    if (trace == undefined || this.#provisional) {
      // No time base yet, so this message has no usable header stamp (one with a valid stamp
      // fixes the base before it gets here): record it by its receive time.
      const { sec, nsec } = event.input.receiveTime;
      const base = trace?.base ?? TimeBase.forFirstSecNsec(sec, nsec);
      trace ??= new StampTrace(this.#topics, base, this.#capacity);
      this.#trace = trace;
      this.#provisional = true;
      arrival = orUnknown(() => base.fromSecNsec(sec, nsec));
    } else {
      this.#settleEarly();
    }
    for (const slot of event.slots) {
      if (event.stamp != undefined) {
        trace.add(slot, event.stamp, arrival);
      } else {
        trace.add(slot, NaN, arrival, event.unstamped ?? "no-header");
      }
    }
  }

  /**
   * Moves the events recorded on receive times to the pipeline's base, before any later event:
   * once the receive clock offset is known, or when the trace is read before that.
   */
  #settleEarly(): void {
    const early = this.#early;
    if (early != undefined && this.#trace != undefined) {
      this.#early = undefined;
      moveEvents(early, this.#trace);
    }
  }
}

/**
 * Appends the events of a trace recorded on receive times to the trace on the pipeline's time
 * base, their receive times moved by `to.receiveClockOffsetSec` as the pipeline moves receive
 * times; one still outside the base's window becomes unknown, as the pipeline's own arrival of a
 * message it could not place.
 */
function moveEvents(from: StampTrace, to: StampTrace): void {
  to.truncated += from.truncated;
  const offsetNs = BigInt(to.receiveClockOffsetSec) * 1_000_000_000n;
  for (let i = 0; i < from.length; i++) {
    const a = from.arrival(i);
    const arrival = a === a ? orUnknown(() => to.base.fromNanoseconds(from.base.toNanoseconds(a) - offsetNs)) : NaN;
    to.add(from.slot(i), NaN, arrival, from.kind(i));
  }
}

/** A time converted onto a base, or NaN (unknown) when it lies outside the base's window. */
function orUnknown(convert: () => number): number {
  try {
    return convert();
  } catch {
    return NaN;
  }
}
