import { StampTrace } from "./StampTrace";
import { TraceRecorder } from "./TraceRecorder";
import { Pipeline } from "../Pipeline";
import { parseConfig } from "../parseConfig";
import type { PipelineInput } from "../types";

/** One periodic input of a synthetic recording (times in ms). */
export interface SyntheticInput {
  readonly periodMs: number;
  /** First stamp (ms). Default 0. */
  readonly offsetMs?: number;
  /** No stamp from here on (ms): the input stops. Default: the trace's end. */
  readonly untilMs?: number;
  /** Receive time − stamp (ms). Default 0. */
  readonly latencyMs?: number;
  /** The input's machine clock is off by this much (ms): its stamps move by it, its receive times do not. */
  readonly clockOffsetMs?: number;
  /** Deterministic stamp jitter amplitude (ms). Default 0. */
  readonly jitterMs?: number;
  /** Every n-th message gets its stamp moved back by `backMs` (ms). */
  readonly backEvery?: number;
  readonly backMs?: number;
  /** Every n-th message has no header. */
  readonly headerlessEvery?: number;
  /** Every n-th message has a zero stamp. */
  readonly zeroEvery?: number;
}

const EPOCH_MS = 1_700_000_000_000;

/**
 * A synthetic stamp trace at epoch scale: the inputs' messages merged in receive order (ties by
 * slot), over `durationMs`. Jitter is a fixed pseudo-random sequence, so traces are reproducible.
 */
export function syntheticTrace(inputs: readonly SyntheticInput[], durationMs: number): StampTrace {
  const events: { slot: number; stamp: bigint | null; arrival: bigint; zero: boolean }[] = [];
  let seed = 12345;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  inputs.forEach((input, slot) => {
    const end = Math.min(durationMs, input.untilMs ?? durationMs);
    for (let k = 0; (input.offsetMs ?? 0) + k * input.periodMs < end; k++) {
      let stampMs = (input.offsetMs ?? 0) + k * input.periodMs + (input.jitterMs ?? 0) * (rand() - 0.5);
      const arrivalMs = stampMs + (input.latencyMs ?? 0);
      if (input.backEvery != undefined && k % input.backEvery === input.backEvery - 1) {
        stampMs -= input.backMs ?? input.periodMs * 2;
      }
      const ns = (ms: number): bigint => BigInt(Math.round((EPOCH_MS + ms) * 1e6));
      stampMs += input.clockOffsetMs ?? 0;
      const headerless = input.headerlessEvery != undefined && k % input.headerlessEvery === 0;
      const zero = input.zeroEvery != undefined && k % input.zeroEvery === 0;
      events.push({ slot, stamp: headerless || zero ? null : ns(stampMs), arrival: ns(arrivalMs), zero });
    }
  });
  events.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : a.slot - b.slot));
  const trace = StampTrace.fromAbsolute(
    inputs.map((_, i) => `/topic${i}`),
    events.map((e) => ({ slot: e.slot, stamp: e.stamp, arrival: e.arrival })),
  );
  if (!events.some((e) => e.zero)) {
    return trace;
  }
  const withZero = new StampTrace(trace.topics, trace.base);
  events.forEach((e, i) => {
    withZero.add(e.slot, trace.stamp(i), trace.arrival(i), e.zero ? "zero-stamp" : "stamped");
  });
  return withZero;
}

/** Whole second of the receive times `receivedAt` counts from (an epoch-scale recording). */
export const T0 = 1_700_000_000;

/** An input message received `ns` after T0. */
export function receivedAt(topic: string, ns: number, message: unknown): PipelineInput {
  return { topic, receiveTime: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 }, message };
}

/**
 * Feeds `messages` to a pipeline of `config` with a TraceRecorder: the recorder, the tuples and
 * the drops by reason (the oracle the diagnosis's counts are checked against).
 */
export function recordThroughPipeline(
  config: unknown,
  messages: readonly PipelineInput[],
): { recorder: TraceRecorder; tuples: number; drops: Record<string, number> } {
  const parsed = parseConfig(config);
  const pipeline = new Pipeline(parsed);
  const recorder = new TraceRecorder(parsed);
  pipeline.use(recorder);
  let tuples = 0;
  const drops: Record<string, number> = {};
  pipeline.onTuple(() => tuples++);
  pipeline.onDrop((d) => {
    drops[d.reason] = (drops[d.reason] ?? 0) + 1;
  });
  for (const m of messages) {
    pipeline.push(m);
  }
  pipeline.finish();
  return { recorder, tuples, drops };
}
