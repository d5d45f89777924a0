import { Log, Odometry, PosesInFrame, SceneUpdate } from "@foxglove/schemas/jsonschema";

import type { ExtensionDrop, FusedPose, Pipeline, PipelineContext, PipelineExtension, PipelineInput, PipelineTuple, TransactionRecord } from "../pipeline";
import {
  dropLogMessage,
  fusedOdometryMessage,
  fusedPosesMessage,
  resultTopics,
  transactionSceneMessage,
  tupleTimingMessage,
  TUPLE_TIMING_JSON_SCHEMA,
  TUPLE_TIMING_SCHEMA,
  type FoxgloveTime,
  type ResultDrop,
  type ResultTopics,
} from "../pipeline/resultMessages";
import type { SynchronizedMcapWriter } from "../recording";
import type { Stamp, TimeBase } from "../time";

/** A JSON channel's schema as SynchronizedMcapWriter.addJson takes it. */
interface JsonSchema {
  readonly name: string;
  readonly jsonSchema: unknown;
}

const SCHEMAS = {
  log: { name: "foxglove.Log", jsonSchema: Log },
  poses: { name: "foxglove.PosesInFrame", jsonSchema: PosesInFrame },
  odometry: { name: "foxglove.Odometry", jsonSchema: Odometry },
  scene: { name: "foxglove.SceneUpdate", jsonSchema: SceneUpdate },
  timing: { name: TUPLE_TIMING_SCHEMA, jsonSchema: TUPLE_TIMING_JSON_SCHEMA },
} satisfies Record<string, JsonSchema>;

/** Fused poses in each foxglove.PosesInFrame: the newest ones, a short trail (1 s at fuse's 10 Hz). */
const POSE_TRAIL = 10;

/** The parts of the fusion extension (FusionRunner) the results read, found by shape. */
interface FusionResults {
  onTransaction(listener: (record: TransactionRecord) => void): unknown;
  drainTrajectory(): FusedPose[];
}

function isFusionResults(ext: unknown): ext is FusionResults {
  const e = ext as Partial<FusionResults>;
  return typeof e.onTransaction === "function" && typeof e.drainTrajectory === "function";
}

interface Pending {
  readonly topic: string;
  readonly schema: JsonSchema;
  readonly logTime: bigint;
  readonly message: unknown;
}

function nsOf(t: { readonly sec: number; readonly nsec: number }): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

/**
 * Adds Lockstep's results to synchronized.mcap as JSON channels the apps' own panels show, beside
 * the republished sets (topics from `resultTopics(namespace)`, shapes from
 * pipeline/resultMessages):
 *
 * - `…/tuple_timing` (lockstep.TupleTiming): one per synchronized set, at the set's log time
 *   (its newest receive time, as the republished messages): timespan and lag for Plot;
 * - `…/drops` (foxglove.Log): one per drops.jsonl line, sync drops at the dropped message's
 *   receive time, an extension's (fusion's) at the receive time of the message being processed,
 *   the reader's (`readDrop`: a damaged chunk's messages, per topic) at the newest receive time;
 * - with fusion: `…/transactions` (foxglove.SceneUpdate), one per transaction; `…/fused_odometry`
 *   (foxglove.Odometry) and `…/fused_poses` (foxglove.PosesInFrame, the newest POSE_TRAIL poses),
 *   one per fused pose, at the receive time of the message after whose cycle it was estimated.
 *
 * A pipeline extension: `attach` registers it after the others (so it sees fusion's output of
 * each message) and declares the writer's JSON channels, before the writer starts. Its hooks only
 * queue; the owner awaits `flush()` after each push and after `finish()` (memory: one push's
 * worth of results). Drains the fusion runner's trajectory (nothing else in analyze reads it).
 *
 * ```ts
 * const results = ResultChannels.attach(pipeline, writer, "/lockstep");
 * await writer.start(); for (…) { pipeline.push(m); await results.flush(); }
 * pipeline.finish(); await results.flush(); await writer.end();
 * ```
 */
export class ResultChannels<M extends PipelineInput> implements PipelineExtension<M> {
  public readonly name = "results";
  readonly #writer: SynchronizedMcapWriter;
  readonly #topics: ResultTopics;
  readonly #fusion: FusionResults | undefined;
  readonly #extensionDrops: { drops: readonly ExtensionDrop[]; stage: string; seen: number }[];
  #base: TimeBase | undefined;
  #lastReceive = 0n;
  #trail: FusedPose[] = [];
  #pending: Pending[] = [];
  /** Drops of the reader (damaged chunks), waiting for a receive time to log them at. */
  #readDrops: ResultDrop[] = [];

  private constructor(pipeline: Pipeline<M>, writer: SynchronizedMcapWriter, namespace: string) {
    this.#writer = writer;
    this.#topics = resultTopics(namespace);
    const fusion: FusionResults | undefined = pipeline.extensions.find((e) => isFusionResults(e));
    this.#fusion = fusion;
    fusion?.onTransaction((record) => {
      const stamp = this.#time(record.tx.stamp);
      if (stamp == undefined) {
        return; // (transactions exist only after the time base)
      }
      const preview = { stamp, source: record.sensor, addedVariables: record.tx.addedVariables, addedConstraints: record.tx.addedConstraints };
      this.#queue(this.#topics.transactions, SCHEMAS.scene, this.#lastReceive, transactionSceneMessage(preview));
    });
    this.#extensionDrops = pipeline.extensions
      .filter((ext) => ext.drops != undefined)
      .map((ext) => ({ drops: ext.drops!, stage: ext.name, seen: 0 }));
    pipeline.onDrop((d) => {
      const receive = nsOf(d.input.receiveTime);
      this.#queue(
        this.#topics.drops,
        SCHEMAS.log,
        receive,
        dropLogMessage({ topic: d.topic, stamp: this.#time(d.stamp), reason: d.reason, detail: d.detail, stage: "sync" }, d.input.receiveTime),
      );
    });
  }

  /** Creates the results for `pipeline` (before its first push) writing to `writer` (before its start). */
  public static attach<M extends PipelineInput>(pipeline: Pipeline<M>, writer: SynchronizedMcapWriter, namespace: string): ResultChannels<M> {
    const results = new ResultChannels(pipeline, writer, namespace);
    writer.useJsonChannels();
    pipeline.use(results);
    return results;
  }

  public start(context: PipelineContext): void {
    this.#base = context.timeBase;
  }

  public message(event: { readonly input: M }): void {
    const t = nsOf(event.input.receiveTime);
    if (t > this.#lastReceive) {
      this.#lastReceive = t;
    }
    this.#logReadDrops();
    this.#collect();
  }

  public tuple(t: PipelineTuple<M>): void {
    let logTime = 0n;
    for (const item of t.items) {
      const r = nsOf(item.input.receiveTime);
      if (r > logTime) {
        logTime = r;
      }
    }
    const stamps = t.stamps.map((s) => this.#time(s) ?? { sec: 0, nsec: 0 });
    this.#queue(
      this.#topics.tupleTiming,
      SCHEMAS.timing,
      logTime,
      tupleTimingMessage({ index: t.index, topics: t.items.map((i) => i.input.topic), stamps, timespanNs: t.timespan, lagNs: t.lag }),
    );
  }

  public finish(): void {
    this.#collect();
    this.#logReadDrops();
  }

  /**
   * A drop the reader reports, not the pipeline: what a damaged chunk held (`unreadable-chunk`,
   * stage "read", no stamp). Logged on the drops channel at the newest receive time seen (the
   * damage lies between that message and the next), or at the first message's when it comes first.
   */
  public readDrop(drop: { readonly topic: string; readonly reason: string; readonly detail: string }): void {
    this.#readDrops.push({ topic: drop.topic, stamp: undefined, reason: drop.reason, detail: drop.detail, stage: "read" });
    if (this.#lastReceive > 0n) {
      this.#logReadDrops();
    }
  }

  /** Writes what the hooks queued. */
  public async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) {
      await this.#writer.addJson(p.topic, p.schema, p.logTime, p.message);
    }
  }

  /** New extension drops and fused poses since the last call. */
  #collect(): void {
    for (const entry of this.#extensionDrops) {
      for (; entry.seen < entry.drops.length; entry.seen++) {
        const d = entry.drops[entry.seen]!;
        const fallback = { sec: Number(this.#lastReceive / 1_000_000_000n), nsec: Number(this.#lastReceive % 1_000_000_000n) };
        this.#queue(
          this.#topics.drops,
          SCHEMAS.log,
          this.#lastReceive,
          dropLogMessage({ topic: d.topic, stamp: this.#time(d.stamp), reason: d.reason, detail: d.detail, stage: entry.stage, sensor: d.sensor }, fallback),
        );
      }
    }
    if (this.#fusion == undefined) {
      return;
    }
    for (const pose of this.#fusion.drainTrajectory()) {
      const stamp = this.#time(pose.stamp) ?? { sec: 0, nsec: 0 };
      this.#trail.push(pose);
      if (this.#trail.length > POSE_TRAIL) {
        this.#trail.shift();
      }
      this.#queue(this.#topics.fusedOdometry, SCHEMAS.odometry, this.#lastReceive, fusedOdometryMessage(pose, stamp));
      this.#queue(this.#topics.fusedPoses, SCHEMAS.poses, this.#lastReceive, fusedPosesMessage(this.#trail, stamp));
    }
  }

  #logReadDrops(): void {
    const fallback = { sec: Number(this.#lastReceive / 1_000_000_000n), nsec: Number(this.#lastReceive % 1_000_000_000n) };
    for (const d of this.#readDrops) {
      this.#queue(this.#topics.drops, SCHEMAS.log, this.#lastReceive, dropLogMessage(d, fallback));
    }
    this.#readDrops = [];
  }

  #queue(topic: string, schema: JsonSchema, logTime: bigint, message: unknown): void {
    this.#pending.push({ topic, schema, logTime, message });
  }

  /** Absolute time of a relative stamp; undefined when it is NaN or the time base is not known. */
  #time(stamp: Stamp): FoxgloveTime | undefined {
    if (this.#base == undefined || !Number.isFinite(stamp)) {
      return undefined;
    }
    return this.#base.toSecNsec(stamp);
  }
}
