import { dropCountText } from "../fusion/runner";
import { formatDuration } from "../time";
import type { Pipeline } from "./Pipeline";
import { spreadOf, type DropExample, type Spread, type TuningHints } from "./PipelineStats";
import type { PipelineInput } from "./types";

/** summary.json (DESIGN §3.3), plus more fields; extension keys are merged in at the top level. */
export interface PipelineSummary {
  topics: Record<
    string,
    {
      messages: number;
      slot: number | undefined;
      rateHz: number | null;
      stampPeriod: Spread | null;
      latency: Spread | null;
      backwardSteps: number;
      drops: Record<string, number>;
    }
  >;
  tuples: number;
  drops: Record<string, number>;
  dropExamples: Record<string, DropExample[]>;
  timespan: Spread | null;
  lag: Spread | null;
  heldAtEnd: number[];
  hints: {
    minDistance: (string | null)[];
    maxTimespan: string | null;
    queueSize: (number | null)[];
    maxQueueSize: number | null;
  };
  policy: string;
  timeBase: number | null;
  /** How percentiles are computed. */
  percentiles: string;
  [extension: string]: unknown;
}

/** Builds the summary object of a (finished) pipeline, extensions' sections merged in. */
export function summarize<M extends PipelineInput>(pipeline: Pipeline<M>): PipelineSummary {
  const stats = pipeline.statistics;
  const slotOf = new Map<string, number>();
  (pipeline.config.inputs ?? []).forEach((i, slot) => {
    if (!slotOf.has(i.topic)) {
      slotOf.set(i.topic, slot);
    }
  });
  const topics: PipelineSummary["topics"] = {};
  for (const [topic, t] of stats.topics) {
    topics[topic] = {
      messages: t.messages,
      slot: slotOf.get(topic),
      rateHz: Number.isFinite(t.rate) ? round(t.rate, 3) : null,
      stampPeriod: spreadOf(t.periods) ?? null,
      latency: spreadOf(t.latencies) ?? null,
      backwardSteps: t.backwardSteps,
      drops: Object.fromEntries(t.drops),
    };
  }
  const hints: TuningHints = stats.hints();
  const summary: PipelineSummary = {
    topics,
    tuples: stats.tuples,
    drops: Object.fromEntries(stats.drops),
    dropExamples: Object.fromEntries(stats.dropExamples),
    timespan: spreadOf(stats.timespans) ?? null,
    lag: spreadOf(stats.lags) ?? null,
    heldAtEnd: stats.heldAtEnd,
    hints: {
      minDistance: hints.minDistance.map((d) => (d == undefined ? null : formatDuration(Math.floor(d / 1000) * 1000))),
      maxTimespan: hints.maxTimespan == undefined ? null : formatDuration(Math.ceil(hints.maxTimespan / 1000) * 1000),
      queueSize: hints.queueSize.map((q) => q ?? null),
      maxQueueSize: hints.maxQueueSize ?? null,
    },
    policy: pipeline.config.policy.type,
    timeBase: stats.timeBase?.baseSec ?? null,
    percentiles:
      "nearest rank over a fixed-seed reservoir sample (Vitter's Algorithm R, 4096 values): exact up to 4096 values, approximate beyond; min and max always exact",
  };
  for (const ext of pipeline.extensions) {
    Object.assign(summary, ext.summary?.() ?? {});
  }
  return summary;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function ms(ns: number): string {
  return `${(ns / 1e6).toFixed(2)} ms`;
}

/** The human summary (lines), as `lockstep analyze` prints it. */
export function describeSummary<M extends PipelineInput>(
  summary: PipelineSummary,
  pipeline: Pipeline<M>,
): string[] {
  const lines: string[] = [];
  lines.push(`policy ${summary.policy}`);
  lines.push("messages per topic:");
  for (const [topic, t] of Object.entries(summary.topics)) {
    const slot = t.slot == undefined ? "" : ` [slot ${t.slot}]`;
    const rate = t.rateHz == undefined ? "" : `, ${t.rateHz.toFixed(1)} Hz`;
    const period = t.stampPeriod ? `, stamp period median ${ms(t.stampPeriod.median)}` : "";
    const back = t.backwardSteps > 0 ? `, ${t.backwardSteps} backward stamp steps` : "";
    lines.push(`  ${topic}${slot}: ${t.messages}${rate}${period}${back}`);
  }
  lines.push(`tuples: ${summary.tuples}`);
  const dropEntries = Object.entries(summary.drops);
  lines.push(
    `drops: ${dropEntries.length === 0 ? "none" : dropEntries.map(([r, n]) => `${r} ${n}`).join(", ")}`,
  );
  for (const [reason, examples] of Object.entries(summary.dropExamples)) {
    const e = examples[0];
    if (e) {
      lines.push(
        `  e.g. ${reason}: ${e.topic} stamp ${e.stamp ?? "none"}${e.detail ? ` (${e.detail})` : ""}`,
      );
    }
  }
  if (summary.timespan) {
    const s = summary.timespan;
    lines.push(
      `timespan: min ${ms(s.min)}, median ${ms(s.median)}, p95 ${ms(s.p95)}, max ${ms(s.max)}`,
    );
  }
  if (summary.lag) {
    lines.push(
      `output lag behind newest input: median ${ms(summary.lag.median)}, max ${ms(summary.lag.max)}`,
    );
  }
  const held = summary.heldAtEnd.reduce((a, b) => a + b, 0);
  if (held > 0) {
    lines.push(`still held by the policy at the end: ${summary.heldAtEnd.join(" / ")} (per slot)`);
  }
  const h = summary.hints;
  lines.push(
    `hints: minDistance [${h.minDistance.map((d) => (d == undefined ? "?" : `"${d}"`)).join(", ")}], ` +
      `maxTimespan ${h.maxTimespan == undefined ? "?" : `"${h.maxTimespan}"`} (keeps 99 % of sets), ` +
      `queue size for the observed lag ${h.maxQueueSize ?? "?"}`,
  );
  for (const ext of pipeline.extensions) {
    lines.push(...(ext.describe?.() ?? []));
    const drops = ext.drops ?? [];
    if (drops.length > 0) {
      const byReason = new Map<string, number>();
      for (const d of drops) {
        byReason.set(d.reason, (byReason.get(d.reason) ?? 0) + 1);
      }
      lines.push(`${ext.name} drops: ${dropCountText(byReason)}`);
    }
  }
  return lines;
}
