import { readStamp } from "../../messages";
import type { PipelineConfig } from "../config";
import type { PipelineContext, PipelineExtension, PipelineInput, PipelineMessageEvent } from "../types";
import { StampTrace } from "./StampTrace";

/**
 * A pipeline extension that records the stamp trace of the pipeline's inputs (see StampTrace):
 * one event per input message and slot, in push order, exactly as the combiner receives them.
 * It reads only header stamps and receive times, so its cost is a few array writes per message.
 * `trace` is undefined until the first stamp fixes the time base.
 */
export class TraceRecorder<M extends PipelineInput = PipelineInput> implements PipelineExtension<M> {
  public readonly name: string = "trace";
  readonly #topics: string[];
  readonly #capacity: number | undefined;
  #trace: StampTrace | undefined;

  public constructor(config: PipelineConfig, capacity?: number) {
    this.#topics = (config.inputs ?? []).map((i) => i.topic);
    this.#capacity = capacity;
  }

  /** The trace so far (undefined before the first stamp). */
  public get trace(): StampTrace | undefined {
    return this.#trace;
  }

  public start(context: PipelineContext): void {
    this.#trace = new StampTrace(this.#topics, context.timeBase, this.#capacity);
  }

  public message(event: PipelineMessageEvent<M>): void {
    const trace = this.#trace;
    if (trace == undefined || event.slots.length === 0) {
      return;
    }
    const arrival = event.arrival ?? NaN;
    if (event.stamp != undefined) {
      for (const slot of event.slots) {
        trace.add(slot, event.stamp, arrival);
      }
      return;
    }
    const kind = readStamp(event.input.message) === "zero-stamp" ? "zero-stamp" : "no-header";
    for (const slot of event.slots) {
      trace.add(slot, NaN, arrival, kind);
    }
  }
}
