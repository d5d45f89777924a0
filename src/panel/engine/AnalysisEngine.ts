import type {
  DropRow,
  EngineDelta,
  EngineInput,
  EngineStats,
  FusedPose,
  FusionSummary,
  MarkBatch,
  RawPose,
  TupleRow,
} from "./engineTypes";
import { tuningHints } from "./hints";
import { TieOrderWatch } from "./tieOrder";
import { compareFromTrace } from "./traceCompare";
import { ConfigError, DROP_REASONS, type DropReason, type FusionDrop,
  defaultExtensions,
  parseConfig,
  Pipeline,
  quaternionAt,
  type TransactionJson,
  yawOf,
  type PipelineConfig,
  type PipelineExtension,
  type PipelineInput,
  tupleMemberTime,
} from "../../pipeline";
import { diagnose, DropExplainer, TraceRecorder, type Diagnosis, type DropExplanation } from "../../pipeline/diagnosis";
import { StampRangeError } from "../../time";
import { isRecord } from "../settings/isRecord";

/** Longest row lists handed out in one delta; older rows of a huge batch are skipped (counted in stats). */
export const DELTA_CAP = 20_000;

/** Most transactions handed out in one delta (the newest; the view keeps the last 500 anyway). */
export const TX_DELTA_CAP = 500;

/** Most fused poses handed out in one delta (the newest). */
export const POSE_DELTA_CAP = DELTA_CAP;

/** Most fusion drop records the runner keeps (the panel shows drop counts from the statistics). */
const FUSION_DROPS_KEPT = 1000;

/**
 * What the panel's fusion runner keeps between two deltas: only what the next delta can hand out
 * (the oldest forgotten first). The runner benchmarks run with it too, as the live consumer does.
 */
export const PANEL_FUSION_RETENTION = { transactions: TX_DELTA_CAP, poses: POSE_DELTA_CAP, drops: FUSION_DROPS_KEPT } as const;

/**
 * The part of the fusion extension (src/fusion/runner FusionRunner) the panel uses: it drains the
 * transactions and poses at every delta and caps what the runner keeps in between, so a live
 * session of hours holds at most one delta's worth.
 */
interface FusionOutputs {
  readonly name: string;
  drainTransactionJson(): TransactionJson[];
  drainTrajectory(): FusedPose[];
  setRetention(retention: { transactions?: number; poses?: number; drops?: number }): unknown;
  readonly transactionCount: number;
  readonly transactionsBySensor: ReadonlyMap<string, number>;
  readonly dropCounts: ReadonlyMap<string, number>;
  readonly drops: readonly FusionDrop[];
  readonly finalPose: FusedPose | undefined;
  readonly warnings: readonly string[];
}

/** Most of the fusion preview's newest drops a delta lists (its counts cover every drop). */
export const FUSION_DROP_EXAMPLES = 5;

/** The fusion run as a whole, as analyze's summary gives it. */
function fusionSummaryOf(fusion: FusionOutputs): FusionSummary {
  const pose = fusion.finalPose;
  return {
    transactions: fusion.transactionCount,
    transactionsBySensor: [...fusion.transactionsBySensor],
    drops: [...fusion.dropCounts],
    // Copies: the runner's records are its own, and a delta is handed to another thread.
    latestDrops: fusion.drops.slice(-FUSION_DROP_EXAMPLES).map((d) => ({ ...d })),
    finalPose: pose && { ...pose },
    warnings: [...fusion.warnings],
  };
}

function isFusion(ext: unknown): ext is FusionOutputs {
  const e = ext as Partial<FusionOutputs> | undefined;
  return (
    e?.name === "fusion" &&
    typeof e.drainTransactionJson === "function" &&
    typeof e.drainTrajectory === "function" &&
    typeof e.setRetention === "function" &&
    e.transactionsBySensor instanceof Map &&
    e.dropCounts instanceof Map
  );
}

const REASON_CODE = new Map<DropReason, number>(DROP_REASONS.map((r, i) => [r, i + 2]));

/** Timeline code of a drop reason (2 + its index in DROP_REASONS). */
export function dropCode(reason: DropReason): number {
  return REASON_CODE.get(reason) ?? 2;
}

/**
 * The 2D pose of a nav_msgs/Odometry-like message (pose.pose.position / orientation), if any:
 * undefined as well when x, y or a part of the orientation is not a finite number, since one such
 * pose would leave the trajectory tab without bounds to draw any track in.
 */
export function odometryPose(message: unknown): { x: number; y: number; yaw: number } | undefined {
  if (!isRecord(message) || !isRecord(message.pose) || !isRecord(message.pose.pose)) {
    return undefined;
  }
  const p = message.pose.pose.position;
  if (!isRecord(p) || typeof p.x !== "number" || typeof p.y !== "number") {
    return undefined;
  }
  const q = quaternionAt(message, "pose", "pose", "orientation");
  if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || (q && ![q.x, q.y, q.z, q.w].every(Number.isFinite))) {
    return undefined;
  }
  return { x: p.x, y: p.y, yaw: q ? yawOf(q) : 0 };
}

type Input = PipelineInput & { readonly seq: number };

function statsOf(pipeline: Pipeline<Input>): EngineStats {
  const s = pipeline.statistics;
  const inputs = pipeline.config.inputs ?? [];
  const drops: Partial<Record<DropReason, number>> = {};
  for (const [reason, n] of s.drops) {
    drops[reason] = n;
  }
  const hints = s.hints();
  return {
    policyType: pipeline.config.policy.type,
    tuples: s.tuples,
    drops,
    timespan:
      s.timespans.count === 0
        ? undefined
        : { min: s.timespans.min, median: s.timespans.median, p95: s.timespans.quantile(0.95), max: s.timespans.max },
    lag: s.lags.count === 0 ? undefined : { median: s.lags.median, p95: s.lags.quantile(0.95), max: s.lags.max },
    topics: inputs.map((input, slot) => {
      const t = s.topics.get(input.topic);
      let dropped = 0;
      for (const n of t?.drops.values() ?? []) {
        dropped += n;
      }
      return { topic: input.topic, messages: t?.messages ?? 0, matched: s.used[slot] ?? 0, dropped, rate: t?.rate ?? NaN };
    }),
    suggested: hints,
  };
}

/**
 * The panel's analysis engine: the project's Pipeline (src/pipeline, the same code as
 * `lockstep analyze`, so the counts agree) over message events in arrival order, collecting what
 * the views need and handing it out as deltas (`takeDelta`). Optionally a second pipeline with
 * another policy runs on the same messages for comparison. Runs anywhere (Web Worker, main
 * thread, Node tests): no DOM, no React.
 *
 * Guarantees: every input message is counted once and is matched, held, or reported as a drop
 * with a reason; memory is bounded (the pipeline keeps fixed-size statistics; deltas are taken
 * and forgotten, each capped at DELTA_CAP rows; the fusion runner's transactions and poses are
 * drained at each delta and capped at TX_DELTA_CAP / POSE_DELTA_CAP in between).
 *
 * Throws ConfigError from the constructor (and from `compare`) when a config is invalid.
 */
export class AnalysisEngine {
  readonly #config: PipelineConfig;
  #compareConfig: PipelineConfig | undefined;
  readonly #rawPolicy: Readonly<Record<string, unknown>>;
  #main!: Pipeline<Input>;
  #compare: Pipeline<Input> | undefined;
  /** Why the comparison policy was refused (its ConfigError), shown in the compare column. */
  #compareError: string | undefined;
  /**
   * Set when the comparison policy was picked after messages were analyzed: its statistics come
   * from a run over the stamp trace (every message since the reset), not from a live pipeline.
   */
  #compareFromTrace = false;
  /** The trace-run statistics and the message count they cover (recomputed when it grew). */
  #traceCompare: { ingested: number; stats: EngineStats } | undefined;
  /** Receive-time ties the host delivered out of file order (named in the hints and the resets). */
  readonly #ties: TieOrderWatch;
  /** Set while the pipeline takes a message that came in as a reversed tie (its drops name it). */
  #pushingReversedTie = false;
  /** Out-of-order-reset drops set off by a reversed tie (since the reset). */
  #tieResets = 0;
  #tuples: TupleRow[] = [];
  #drops: DropRow[] = [];
  #marks: MarkBatch = { slots: [], stamps: [], codes: [] };
  #rawPoses: RawPose[] = [];
  #ingested = 0;
  /** Messages the pipeline refused (it threw): counted as drops, never lost. */
  #rejected = 0;
  /** Set by `finish`: the pipeline has ended; messages are refused until `reset`. */
  #finished = false;
  #fusion: FusionOutputs | undefined;
  /** The stamps the policy saw, for the Diagnosis view. */
  #trace!: TraceRecorder<Input>;
  /** The instrumented re-run explanations come from; rebuilt after new messages. */
  #explainer: DropExplainer | undefined;

  /**
   * @param configJson the pipeline config JSON (DESIGN §3.2), with `inputs`
   * @param comparePolicyJson optional second `policy` JSON to run side by side on the same data
   */
  public constructor(configJson: unknown, comparePolicyJson?: unknown) {
    this.#config = parseConfig(configJson);
    this.#ties = new TieOrderWatch(this.#config.inputs);
    this.#rawPolicy = isRecord(configJson) && isRecord(configJson.policy) ? configJson.policy : {};
    this.#compareConfig = this.#parseCompare(comparePolicyJson);
    this.#build();
  }

  #build(): void {
    this.#explainer = undefined;
    const main = new Pipeline<Input>(this.#config);
    for (const ext of defaultExtensions<Input>(this.#config)) {
      main.use(ext);
    }
    main.use(this.#observer());
    main.use((this.#trace = new TraceRecorder<Input>(this.#config)));
    // A member is shown at the time the policy matched it by: a headerless one (or any, with
    // syncArrivalTime) at its arrival (DESIGN §3.3).
    const memberTime = tupleMemberTime(this.#config.policy);
    main.onTuple((t) => {
      const stamps = t.items.map((i) => memberTime(i));
      this.#tuples.push({ index: t.index, stamps, seqs: t.items.map((i) => i.input.seq), timespan: t.timespan, lag: t.lag });
      for (let slot = 0; slot < stamps.length; slot++) {
        this.#mark(slot, stamps[slot]!, 1);
      }
    });
    main.onDrop((d) => {
      const slot = d.slot >= 0 ? d.slot : (this.#config.inputs ?? []).findIndex((i) => i.topic === d.topic);
      // An out-of-order reset set off by a tie the host swapped: say so (the CLI has none).
      const tie = d.reason === "out-of-order-reset" && this.#pushingReversedTie ? this.#ties.dropDetail() : undefined;
      if (tie != undefined) {
        this.#tieResets++;
      }
      const detail = tie == undefined ? d.detail : d.detail == undefined || d.detail === "" ? tie : `${d.detail}; ${tie}`;
      this.#drops.push({ slot, topic: d.topic, stamp: d.stamp, reason: d.reason, detail, seq: d.input.seq });
      if (slot >= 0 && !Number.isNaN(d.stamp)) {
        this.#mark(slot, d.stamp, dropCode(d.reason));
      }
    });
    this.#main = main;
    this.#fusion = main.extensions.find(isFusion);
    // Between two deltas the runner keeps only what the next delta can hand out (oldest dropped).
    this.#fusion?.setRetention(PANEL_FUSION_RETENTION);
    this.#compare = this.#compareConfig ? new Pipeline<Input>(this.#compareConfig) : undefined;
  }

  /** Records received marks and raw odometry poses as the pipeline sees each message. */
  #observer(): PipelineExtension<Input> {
    return {
      name: "lockstep-panel",
      message: (ev) => {
        if (ev.stamp == undefined) {
          return;
        }
        for (const slot of ev.slots) {
          this.#mark(slot, ev.stamp, 0);
        }
        if (ev.slots.length > 0) {
          const pose = odometryPose(ev.input.message);
          if (pose) {
            this.#rawPoses.push({ stamp: ev.stamp, slot: ev.slots[0]!, ...pose });
          }
        }
      },
    };
  }

  #mark(slot: number, stamp: number, code: number): void {
    this.#marks.slots.push(slot);
    this.#marks.stamps.push(stamp);
    this.#marks.codes.push(code);
  }

  /** The comparison config, or undefined with `#compareError` set when the policy is invalid. */
  #parseCompare(comparePolicyJson: unknown): PipelineConfig | undefined {
    this.#compareError = undefined;
    if (comparePolicyJson == undefined) {
      return undefined;
    }
    try {
      return parseConfig({ inputs: this.#config.inputs, policy: comparePolicyJson });
    } catch (err) {
      if (err instanceof ConfigError) {
        this.#compareError = err.message;
        return undefined;
      }
      throw err;
    }
  }

  /**
   * Replaces the comparison policy (undefined: none) without touching the main pipeline's results.
   * The comparison covers the same messages as the main result: picked after messages were
   * analyzed (a whole recording, or part of a playback), it is run over the stamp trace of all of
   * them, and kept up to date as more arrive, until the next reset. An invalid policy is not
   * thrown: the deltas carry its error as `compareError` and no comparison.
   */
  public setCompare(comparePolicyJson: unknown): void {
    this.#compareConfig = this.#parseCompare(comparePolicyJson);
    this.#compare = undefined;
    this.#traceCompare = undefined;
    this.#compareFromTrace = this.#compareConfig != undefined && this.#ingested > 0;
    if (this.#compareConfig && !this.#compareFromTrace) {
      this.#compare = new Pipeline<Input>(this.#compareConfig);
    }
  }

  /** The comparison statistics over the messages since the reset (see `setCompare`). */
  #compareStats(main: EngineStats): EngineStats | undefined {
    if (!this.#compareFromTrace) {
      return this.#compare ? statsOf(this.#compare) : undefined;
    }
    if (this.#traceCompare?.ingested !== this.#ingested) {
      this.#traceCompare = { ingested: this.#ingested, stats: compareFromTrace(this.#compareConfig!, this.#trace.trace, main) };
    }
    return this.#traceCompare.stats;
  }

  /** Diagnoses the config on the stamps seen since the last reset (a search of policy re-runs). */
  public diagnose(): Diagnosis | undefined {
    const trace = this.#trace.trace;
    return trace == undefined ? undefined : diagnose(trace, this.#config.policy);
  }

  /**
   * What decided the synchronizer's drop of the message on `slot` with this stamp (relative ns,
   * as in the drop rows): the same explanation as `lockstep doctor --explain`. Undefined when no
   * stamped message there was dropped by the synchronizer (a fusion drop, a headerless message).
   */
  public explain(slot: number, stamp: number): DropExplanation | undefined {
    const trace = this.#trace.trace;
    if (trace == undefined) {
      return undefined;
    }
    this.#explainer ??= new DropExplainer(trace, this.#config.policy);
    const event = this.#explainer.findDropped(slot, stamp);
    return event < 0 ? undefined : this.#explainer.explain(event);
  }

  /** Input topics in slot order. */
  public get topics(): readonly string[] {
    return (this.#config.inputs ?? []).map((i) => i.topic);
  }

  /** The validated config. */
  public get config(): PipelineConfig {
    return this.#config;
  }

  /** Forgets everything seen (after a seek, or before a whole-recording analysis). */
  public reset(): void {
    this.#tuples = [];
    this.#drops = [];
    this.#marks = { slots: [], stamps: [], codes: [] };
    this.#rawPoses = [];
    this.#ingested = 0;
    this.#rejected = 0;
    this.#finished = false;
    this.#compareFromTrace = false;
    this.#traceCompare = undefined;
    this.#ties.clear();
    this.#tieResets = 0;
    this.#build();
  }

  /**
   * End of the data (a whole-recording analysis reached the end of the range): the pipelines
   * finish, so their extensions do their end-of-stream work (fusion runs its remaining
   * optimization cycles, as `lockstep analyze` does at the end of a recording); the next delta
   * carries what that produced. Later messages are refused (counted in `rejected`, each a drop row)
   * until `reset`. Idempotent.
   */
  public finish(): void {
    if (this.#finished) {
      return;
    }
    this.#finished = true;
    this.#main.finish();
    this.#compare?.finish();
  }

  /**
   * Runs events through the pipeline(s), in the order given (arrival order). Bad stamps are the
   * pipeline's own drops (`invalid-stamp`, `zero-stamp`, `no-header`); a message the pipeline
   * still throws on is skipped and counted as a drop too, `invalid-stamp` when a stamp in it (a
   * transform's, say) lies outside the time window, `discarded` after `finish`, else `undecodable`
   * (it could not be used), with the error as detail. It never stops the stream.
   */
  public ingest(events: readonly EngineInput[]): void {
    this.#explainer = undefined;
    for (const ev of events) {
      this.#ingested++;
      this.#pushingReversedTie = this.#ties.observe(ev);
      try {
        this.#main.push(ev);
      } catch (err) {
        this.#rejected++;
        const slot = this.topics.indexOf(ev.topic);
        // (after `finish` the pipeline takes nothing: such a message is discarded, not bad)
        const reason: DropReason = this.#finished ? "discarded" : err instanceof StampRangeError ? "invalid-stamp" : "undecodable";
        this.#drops.push({ slot, topic: ev.topic, stamp: NaN, reason, detail: err instanceof Error ? err.message : String(err), seq: ev.seq });
      }
      this.#pushingReversedTie = false;
      try {
        this.#compare?.push(ev);
      } catch {
        // reported once, above
      }
    }
  }

  /**
   * The tuning hints, the host's tie order first whenever a tie came in with its stamps backwards
   * (with resets, as their cause; without, as a reason the sets can differ from the CLI's); when
   * it explains every reset, the generic advice about backward stamps (clock jumps) is not given.
   */
  #hints(stats: EngineStats): string[] {
    const resets = stats.drops["out-of-order-reset"] ?? 0;
    const tie = this.#ties.hint(resets > 0 ? "resets" : "other-sets");
    if (tie == undefined) {
      return tuningHints(stats, this.#rawPolicy);
    }
    const rest = resets > 0 && this.#tieResets >= resets ? { ...stats, drops: { ...stats.drops, "out-of-order-reset": 0 } } : stats;
    return [tie, ...tuningHints(rest, this.#rawPolicy)];
  }

  /** Everything new since the previous call, plus the cumulative statistics and hints. */
  public takeDelta(): EngineDelta {
    const cap = <T>(xs: T[]): T[] => (xs.length > DELTA_CAP ? xs.slice(xs.length - DELTA_CAP) : xs);
    const marks = this.#marks;
    if (marks.codes.length > DELTA_CAP * 4) {
      const from = marks.codes.length - DELTA_CAP * 4;
      marks.slots = marks.slots.slice(from);
      marks.stamps = marks.stamps.slice(from);
      marks.codes = marks.codes.slice(from);
    }
    const stats = statsOf(this.#main);
    let transactions: TransactionJson[] = [];
    let fusedPoses: FusedPose[] = [];
    const fusion = this.#fusion;
    if (fusion) {
      // Drained: handed out once and forgotten by the runner (its retention caps them at
      // TX_DELTA_CAP / POSE_DELTA_CAP newest between deltas).
      transactions = fusion.drainTransactionJson();
      fusedPoses = fusion.drainTrajectory().map((p) => ({ stamp: p.stamp, x: p.x, y: p.y, z: p.z, roll: p.roll, pitch: p.pitch, yaw: p.yaw }));
    }
    const delta: EngineDelta = {
      baseSec: this.#main.timeBase?.baseSec,
      tuples: cap(this.#tuples),
      drops: cap(this.#drops),
      marks,
      rawPoses: cap(this.#rawPoses),
      fusedPoses,
      transactions,
      ...(fusion ? { fusion: fusionSummaryOf(fusion) } : {}),
      stats,
      hints: this.#hints(stats),
      compare: this.#compareStats(stats),
      compareError: this.#compareError,
      ingested: this.#ingested,
      rejected: this.#rejected,
    };
    this.#tuples = [];
    this.#drops = [];
    this.#marks = { slots: [], stamps: [], codes: [] };
    this.#rawPoses = [];
    return delta;
  }
}
