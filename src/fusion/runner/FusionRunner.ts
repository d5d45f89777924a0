import { frameIdOf } from "../../messages";
import { TimeBase, type Stamp } from "../../time";
import { FusionConfigError, parseFusionConfig, type FusionConfig } from "../config";
import {
  Graph,
  ORIENTATION_2D,
  POSITION_2D,
  StampedUuids,
  type FusionContext,
  type FusionDrop,
  type MotionModel,
  type ReadonlyGraph,
  type RigidTransform,
  type SensorModel,
  type Transaction,
  type TransformLookup,
  type UuidRecipe,
} from "../core";
import {
  Acceleration2D,
  Imu2D,
  Odometry2D,
  Pose2D,
  Twist2D,
  Unicycle2DIgnition,
  type Acceleration2DOptions,
  type Imu2DOptions,
  type Odometry2DOptions,
  type Pose2DOptions,
  type Twist2DOptions,
} from "../models";
import { Unicycle2D, type Unicycle2DOptions } from "../motion";
import { BatchOptimizer, FixedLagSmoother } from "../optimizer";
import { transactionLine } from "./transactionLine";

/** Something that looks transforms up and throws when it cannot (the pipeline's TransformBuffer). */
export interface ThrowingTransformSource {
  lookup(target: string, source: string, stamp?: Stamp): RigidTransform;
}

/**
 * The optimizer the runner drives (helper G's FixedLagSmoother / BatchOptimizer fit it): `update`
 * applies one cycle's merged transaction, `optimize` solves, and `graph` is what sensors and
 * motion models see after each cycle. Absent → the runner keeps an unoptimized Graph.
 */
export interface FusionOptimizer {
  update(transaction: Transaction): void;
  optimize(): void;
  readonly graph: ReadonlyGraph;
  /**
   * Variables older than this stamp have been (or are about to be) marginalized; the runner drops
   * queued transactions that involve older stamps ("too-late"), as fuse's FixedLagSmoother does.
   * Absent or -Infinity = nothing is ever marginalized.
   */
  readonly lagExpiration?: Stamp;
}

/** A fused pose (DESIGN §3.3 summary `fusion.finalPose`). */
export interface FusedPose {
  readonly stamp: Stamp;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

/** Shape of the pipeline's start context the runner uses (structural: fusion imports no pipeline). */
export interface RunnerStartContext {
  readonly timeBase: TimeBase;
  readonly transforms?: ThrowingTransformSource;
  readonly config?: { readonly inputs?: readonly { readonly topic: string }[] };
}

/** Shape of a pipeline message event the runner uses. */
export interface RunnerMessageEvent {
  readonly input: { readonly topic: string; readonly message: unknown };
  readonly arrival: Stamp | undefined;
}

/** Options of FusionRunner. */
export interface FusionRunnerOptions {
  /**
   * Builds a custom optimizer once the time base is known. Default: fuse's own flow through
   * src/fusion/optimizer (FixedLagSmoother or BatchOptimizer per `optimizer.type`).
   */
  readonly createOptimizer?: (config: FusionConfig, context: FusionContext) => FusionOptimizer;
  /** Skip optimization entirely (transactions only, unoptimized graph). Default false. */
  readonly transactionsOnly?: boolean;
  /**
   * The pipeline's inputs (slot order), when known at construction: sensors that name a `slot`
   * are checked against them right away (FusionConfigError), instead of at `start`. Default
   * unknown (checked at `start` against the start context's inputs).
   */
  readonly inputs?: readonly { readonly topic: string }[];
}

/**
 * How much of its output the runner keeps (see `FusionRunner.setRetention`). Each limit is a count
 * of the newest entries kept; older ones are forgotten first. Default Infinity (keep everything:
 * `lockstep analyze` writes every transaction at the end).
 */
export interface FusionRetention {
  /** Recorded transactions kept for `transactionLines` / `drainTransactions` / `outputs`. */
  readonly transactions?: number;
  /** Fused poses kept for `trajectory` / `drainTrajectory`. */
  readonly poses?: number;
  /** Dropped-message records kept in `drops` (the summary's drop counts always cover all). */
  readonly drops?: number;
}

interface Pending {
  readonly sensor: string;
  readonly tx: Transaction;
}

const NS_PER_SEC = 1e9;

/**
 * Runs fuse's sensor models, motion models and optimizer cycle over a message stream, the way
 * fuse's optimizer does (reference/fuse.md §1.6, §6.4), and records every processed sensor
 * transaction as DESIGN §3.4 JSON.
 *
 * Flow: messages go to the sensors subscribed to their topic (sensors are started at the first
 * message, so "now" is that message's receive time); sent transactions are queued; at every
 * `optimizer.updatePeriod` of receive time the queue is processed oldest first: before ignition
 * only an ignition sensor's transaction starts the run (older transactions of other sensors are
 * purged; without ignition sensors the run starts at once); each transaction gets its sensor's
 * motion models applied (a failure is retried next cycle, or dropped once its max stamp plus
 * `transactionTimeout` is older than the newest pending stamp); successes are written out and merged
 * into the cycle transaction, which goes to the optimizer (or an unoptimized Graph), then every
 * sensor and motion model gets `graphCallback`. As in fuse's FixedLagSmoother, a queued
 * transaction whose oldest involved stamp is older than the optimizer's `lagExpiration` is dropped
 * ("too-late", reported once) instead of re-adding variables that were already marginalized.
 *
 * Transaction lines are serialized lazily: the runner keeps the recorded transactions and writes
 * their JSON when `transactionLines`, `drainTransactions()` or `outputs()` reads them (recorded
 * transactions are not changed afterwards, except by a later motion model, which re-serializes an
 * already written line that is still retained).
 *
 * Memory: by default every transaction, pose and drop is kept (the CLI writes them all at the
 * end). A long-running consumer (the panel, a live robot for hours) bounds it with
 * `setRetention` (oldest forgotten first) and/or takes the output incrementally with
 * `drainTransactions()` / `drainTrajectory()`, which hand out and forget what was produced since
 * the previous drain. Everything else the runner holds is bounded by the optimizer's lag and the
 * motion models' buffers; summary counts always cover the whole run.
 *
 * A sensor's `slot` must name a pipeline input: checked at construction when `options.inputs` is
 * given, else at `start` (FusionConfigError with the JSON path either way).
 *
 * It has the shape of a pipeline extension (`name`, `topics`, `start`, `message`, `finish`,
 * `summary`, `describe`, `outputs`) without importing the pipeline layer.
 */
export class FusionRunner {
  public readonly name = "fusion";
  readonly #config: FusionConfig;
  readonly #options: FusionRunnerOptions;
  #base: TimeBase | undefined;
  #transforms: ThrowingTransformSource | undefined;
  #inputs: readonly { readonly topic: string }[] = [];
  #context: FusionContext | undefined;
  readonly #sensors = new Map<string, SensorModel>();
  readonly #motion = new Map<string, MotionModel>();
  #optimizer: FusionOptimizer | undefined;
  #fuse: FixedLagSmoother | BatchOptimizer | undefined;
  /** Absolute record index (see #forgotten) of each recorded transaction; weak: drained ones go. */
  readonly #lineOf = new WeakMap<Transaction, number>();
  #graph: Graph | undefined;
  #started = false;
  #pluginsStarted = false;
  #now: Stamp = 0;
  #nextTick: Stamp | undefined;
  #pending: Pending[] = [];
  /**
   * Retained recorded transactions in output order, from index #head on (entries before it are
   * forgotten and released at the next compaction); `#lines[i]` is the JSON of `#records[i]` once
   * written (`#lines.length` ≤ `#records.length`). Absolute index = #forgotten + (i − #head).
   */
  #records: Pending[] = [];
  #lines: string[] = [];
  #head = 0;
  #forgotten = 0;
  #drops: FusionDrop[] = [];
  #maxTransactions = Infinity;
  #maxPoses = Infinity;
  #maxDrops = Infinity;
  readonly #warnings: string[] = [];
  readonly #dropCounts = new Map<string, number>();
  #transactions = 0;
  readonly #perSensor = new Map<string, number>();
  #finalPose: FusedPose | undefined;
  #trajectory: FusedPose[] = [];
  #recipe: UuidRecipe | undefined;
  #warnedOrientation = false;

  /** `fusion` is the raw config section (validated here; throws FusionConfigError with a path). */
  /**
   * `fusion` is the raw config section (validated here; throws FusionConfigError with a path, also
   * for a sensor `slot` outside `options.inputs` when those are given).
   */
  public constructor(fusion: unknown, options: FusionRunnerOptions = {}) {
    this.#config = parseFusionConfig(fusion);
    this.#options = options;
    this.#recipe = this.#config.uuidRecipe;
    if (options.inputs != undefined) {
      this.#checkSlots(options.inputs);
    }
  }

  /**
   * Bounds what the runner keeps of its output (FusionRetention; each limit a non-negative
   * integer or Infinity, default Infinity): the oldest transactions, poses and drop records
   * beyond a limit are forgotten at once and from then on. Forgotten transactions are neither in
   * `transactionLines` nor in `outputs()`. Throws RangeError for a negative or fractional limit.
   * Returns this.
   */
  public setRetention(retention: FusionRetention): this {
    const limit = (v: number | undefined, what: string): number => {
      const n = v ?? Infinity;
      if (!(n >= 0) || (n !== Infinity && !Number.isInteger(n))) {
        throw new RangeError(`FusionRunner.setRetention: ${what} must be a non-negative integer or Infinity, got ${String(v)}`);
      }
      return n;
    };
    this.#maxTransactions = limit(retention.transactions, "transactions");
    this.#maxPoses = limit(retention.poses, "poses");
    this.#maxDrops = limit(retention.drops, "drops");
    this.#trimRecords();
    this.#trajectory = keepNewest(this.#trajectory, this.#maxPoses);
    this.#drops = keepNewest(this.#drops, this.#maxDrops);
    return this;
  }

  /** The validated configuration. */
  public get config(): FusionConfig {
    return this.#config;
  }

  /** Topics the sensors read (so a recording reader delivers them). */
  public get topics(): string[] {
    const out = new Set<string>();
    for (const s of this.#config.sensors.values()) {
      if (typeof s.params.topic === "string") {
        out.add(s.params.topic);
      } else if (s.type === "fuse_models::Unicycle2DIgnition") {
        out.add("set_pose");
      }
    }
    return [...out];
  }

  /**
   * The retained transactions, as JSON lines (DESIGN §3.4), oldest first: every transaction
   * recorded so far unless some were drained or forgotten (see `setRetention`).
   */
  public get transactionLines(): readonly string[] {
    return this.#serialize();
  }

  /**
   * Hands out the retained transactions as JSON lines (oldest first) and forgets them: each call
   * returns what was recorded since the previous drain (minus what the retention limit dropped
   * meanwhile). A transaction a later motion model changes after it was drained is not handed
   * out again.
   */
  public drainTransactions(): string[] {
    const out = this.#serialize(); // compacted: #head is 0
    this.#forgotten += this.#records.length;
    this.#records = [];
    this.#lines = [];
    return out;
  }

  /** Number of transactions recorded so far (the whole run, without writing their JSON). */
  public get transactionCount(): number {
    return this.#transactions;
  }

  /** Number of transactions currently retained (not drained or forgotten). */
  public get retainedTransactionCount(): number {
    return this.#records.length - this.#head;
  }

  /**
   * Every dropped message (once each), oldest first; with a `drops` retention limit only the
   * newest that many (the summary's counts cover all).
   */
  public get drops(): readonly FusionDrop[] {
    return this.#drops;
  }

  /** Warnings (e.g. the IMU orientation convention check). */
  public get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** The latest fused pose (after the last cycle), if any. */
  public get finalPose(): FusedPose | undefined {
    return this.#finalPose;
  }

  /**
   * The retained fused poses, one per optimization cycle, in order (the fused trajectory): all of
   * them unless drained or limited by `setRetention`.
   */
  public get trajectory(): readonly FusedPose[] {
    return this.#trajectory;
  }

  /** Hands out the retained fused poses (oldest first) and forgets them. */
  public drainTrajectory(): FusedPose[] {
    const out = this.#trajectory;
    this.#trajectory = [];
    return out;
  }

  /** The graph sensors see (the optimizer's, or the unoptimized one). */
  public get graph(): ReadonlyGraph | undefined {
    return this.#optimizer?.graph ?? this.#graph;
  }

  /**
   * Fixes the time base and transforms (the pipeline's start). Throws FusionConfigError when a
   * sensor's `slot` is not one of the context's inputs.
   */
  public start(context: RunnerStartContext): void {
    this.#inputs = this.#options.inputs ?? context.config?.inputs ?? [];
    this.#checkSlots(this.#inputs);
    this.#base = context.timeBase;
    this.#transforms = context.transforms;
  }

  /** One message (any topic), with its relative receive time. */
  public message(event: RunnerMessageEvent): void {
    const arrival = event.arrival;
    if (arrival == undefined || this.#base == undefined) {
      return;
    }
    this.#now = arrival;
    if (!this.#pluginsStarted) {
      this.#recipe ??= detectRecipe(event.input.message);
      if (this.#recipe == undefined) {
        return; // wait for a stamped message to tell ROS 1 from ROS 2
      }
      this.#startPlugins();
    }
    if (this.#fuse) {
      this.#fuse.spinUntil(arrival);
    } else {
      this.#tick(arrival);
    }
    for (const [name, sensor] of this.#sensors) {
      if (sensor.topics.includes(event.input.topic)) {
        if (this.#config.sensors.get(name)?.type === "fuse_models::Imu2D") {
          const frame = frameIdOf(event.input.message);
          if (frame != undefined && frame !== "") {
            let set = this.#imuFrames.get(name);
            if (set == undefined) {
              set = new Set();
              this.#imuFrames.set(name, set);
            }
            set.add(frame);
          }
        }
        sensor.handleMessage({ topic: event.input.topic, message: event.input.message, receiveTime: arrival });
      }
    }
  }

  /** End of stream: runs the remaining cycles, stops the plugins. */
  public finish(): void {
    if (!this.#pluginsStarted) {
      return;
    }
    if (this.#fuse) {
      if (this.#fuse instanceof FixedLagSmoother) {
        this.#fuse.flush();
      } else {
        this.#fuse.optimizeNow();
      }
    } else {
      this.#cycle();
      this.#cycle();
    }
    for (const s of this.#sensors.values()) {
      s.stop();
    }
    for (const m of this.#motion.values()) {
      m.stop();
    }
  }

  /** Keys merged into summary.json. */
  public summary(): Record<string, unknown> {
    const base = this.#base;
    const pose = this.#finalPose;
    return {
      transactions: this.#transactions,
      fusion: {
        finalPose:
          pose && base ? { stamp: base.format(pose.stamp), x: pose.x, y: pose.y, yaw: pose.yaw } : null,
        transactionsBySensor: Object.fromEntries(this.#perSensor),
        drops: Object.fromEntries(this.#dropCounts),
        optimized: this.#optimizer != undefined || this.#fuse != undefined,
        uuidRecipe: this.#recipe ?? null,
        warnings: [...this.#warnings],
      },
    };
  }

  /** Lines for the human summary. */
  public describe(): string[] {
    const lines = [`fusion: ${this.#transactions} transactions (${[...this.#perSensor].map(([k, v]) => `${k} ${v}`).join(", ")})`];
    const p = this.#finalPose;
    if (p && this.#base) {
      lines.push(
        `fusion: final pose at ${this.#base.format(p.stamp)}: x ${p.x.toFixed(3)} m, y ${p.y.toFixed(3)} m, yaw ${p.yaw.toFixed(4)} rad${this.#optimizer != undefined || this.#fuse != undefined ? "" : " (not optimized)"}`,
      );
    }
    for (const w of this.#warnings) {
      lines.push(`fusion warning: ${w}`);
    }
    return lines;
  }

  /** Extra output files: `transactions.jsonl` with the retained transactions. */
  public outputs(): { file: string; lines: Iterable<string> }[] {
    return [{ file: "transactions.jsonl", lines: this.transactionLines }];
  }

  /** FusionConfigError for the first sensor whose `slot` is not an index into `inputs`. */
  #checkSlots(inputs: readonly { readonly topic: string }[]): void {
    for (const [name, s] of this.#config.sensors) {
      const slot = s.params.slot;
      if (s.params.topic != undefined || typeof slot !== "number") {
        continue;
      }
      if (slot < 0 || slot >= inputs.length || !Number.isInteger(slot)) {
        const has =
          inputs.length === 0
            ? "the pipeline has no inputs"
            : `the pipeline has ${inputs.length} input${inputs.length === 1 ? "" : "s"} (${inputs.length === 1 ? "0" : `0..${inputs.length - 1}`})`;
        throw new FusionConfigError(
          `fusion.sensors.${name}.slot`,
          `${slot} is not an input slot; ${has}. Use one of those slots or give the sensor a "topic"`,
        );
      }
    }
  }

  #startPlugins(): void {
    const base = this.#base!;
    const lookup: TransformLookup | undefined = this.#transforms
      ? {
          lookup: (target, source, stamp) => {
            try {
              return this.#transforms!.lookup(target, source, stamp);
            } catch {
              return undefined;
            }
          },
        }
      : undefined;
    const context: FusionContext = {
      timeBase: base,
      uuids: new StampedUuids(base, this.#recipe!),
      transforms: lookup,
      drop: (d) => {
        if (this.#maxDrops > 0) {
          this.#drops = makeRoom(this.#drops, this.#maxDrops);
          this.#drops.push(d);
        }
        const key = d.reason;
        this.#dropCounts.set(key, (this.#dropCounts.get(key) ?? 0) + 1);
      },
      warn: (m) => this.#warnings.push(m),
      now: () => this.#now,
    };
    this.#context = context;
    for (const [name, m] of this.#config.motionModels) {
      const model = new Unicycle2D(m.params as unknown as Unicycle2DOptions);
      model.initialize(context, name);
      this.#motion.set(name, model);
    }
    const useFuse = this.#options.createOptimizer == undefined && this.#options.transactionsOnly !== true;
    for (const [name, s] of this.#config.sensors) {
      const sensor = this.#createSensor(s.type, this.#resolveTopic(s.params));
      sensor.initialize(context, name, (tx) => {
        if (this.#fuse) {
          if (s.motionModels.length === 0) {
            this.#record(name, tx);
          }
          this.#fuse.transactionCallback(name, tx);
        } else {
          this.#pending.push({ sensor: name, tx });
        }
      });
      this.#sensors.set(name, sensor);
    }
    if (this.#options.createOptimizer) {
      this.#optimizer = this.#options.createOptimizer(this.#config, context);
    } else if (useFuse) {
      this.#fuse = this.#createFuseOptimizer();
    } else {
      this.#graph = new Graph();
    }
    this.#checkImuMounting();
    this.#pluginsStarted = true;
    for (const m of this.#motion.values()) {
      m.start();
    }
    for (const s of this.#sensors.values()) {
      s.start();
    }
    if (![...this.#config.sensors.values()].some((s) => s.ignition)) {
      this.#started = true;
    }
    this.#nextTick = this.#now + this.#config.optimizer.updatePeriod;
  }

  /** fuse's optimizer flow (helper G's FixedLagSmoother / BatchOptimizer). */
  #createFuseOptimizer(): FixedLagSmoother | BatchOptimizer {
    const o = this.#config.optimizer;
    const solver = { maxIterations: o.maxIterations };
    // The runner reads only the estimate's pose, and its listeners (fuse_models sensors,
    // Unicycle2D) copy what they need from the graph during the call: no covariance solve and
    // no graph copy per cycle (the results are the same).
    const shared = { solver, estimateCovariance: false, snapshotGraph: false };
    const opt =
      o.type === "batch"
        ? new BatchOptimizer({ optimizationPeriod: o.updatePeriod, transactionTimeout: o.transactionTimeout, ...shared })
        : new FixedLagSmoother({
            lagDuration: o.lag,
            optimizationPeriod: o.updatePeriod,
            transactionTimeout: o.transactionTimeout,
            ...shared,
          });
    // Each motion model is wrapped so the runner sees every sensor transaction right after the
    // motion models augmented it: that is the transaction written to transactions.jsonl.
    // Weak: a transaction the optimizer is done with must not be kept alive by this lookup.
    const owner = new WeakMap<Transaction, string>();
    for (const [name, model] of this.#motion) {
      const proxy: MotionModel = {
        name: model.name,
        initialize: (c, n) => {
          model.initialize(c, n);
        },
        start: () => {
          model.start();
        },
        stop: () => {
          model.stop();
        },
        graphCallback: (g) => {
          model.graphCallback(g);
        },
        apply: (tx) => {
          const ok = model.apply(tx);
          const sensor = owner.get(tx);
          if (ok && sensor != undefined) {
            this.#record(sensor, tx);
          }
          return ok;
        },
      };
      opt.addMotionModel(name, proxy);
    }
    for (const [name, s] of this.#config.sensors) {
      opt.addSensor(name, { motionModels: s.motionModels, ignition: s.ignition });
    }
    const callback = opt.transactionCallback.bind(opt);
    opt.transactionCallback = (sensor: string, tx: Transaction): void => {
      owner.set(tx, sensor);
      callback(sensor, tx);
    };
    opt.onDrop((d) => {
      const topic = this.#sensors.get(d.sensor)?.topics[0] ?? "";
      this.#context!.drop({ sensor: d.sensor, topic, stamp: d.stamp, reason: d.reason, detail: d.detail });
    });
    opt.onEstimate((e) => {
      this.#finalPose = { stamp: e.stamp, x: e.x, y: e.y, yaw: e.yaw };
      this.#addPose(this.#finalPose);
    });
    opt.onNotify((_tx, graph) => {
      for (const s of this.#sensors.values()) {
        s.graphCallback(graph);
      }
      this.#runImuCheck();
    });
    return opt;
  }

  /**
   * Records a sensor transaction for output (its JSON is written lazily); a transaction recorded
   * again (after a later motion model) keeps its place, and its line is rewritten if already out.
   */
  #record(sensor: string, tx: Transaction): void {
    const at = this.#lineOf.get(tx);
    if (at != undefined) {
      // Still retained and already written: rewrite it (drained or forgotten ones stay as they were).
      const i = at - this.#forgotten + this.#head;
      if (i >= this.#head && i < this.#lines.length) {
        this.#lines[i] = transactionLine(tx, this.#base!, sensor);
      }
      return;
    }
    this.#lineOf.set(tx, this.#forgotten + this.#records.length - this.#head);
    this.#records.push({ sensor, tx });
    this.#transactions++;
    this.#perSensor.set(sensor, (this.#perSensor.get(sensor) ?? 0) + 1);
    if (this.#records.length - this.#head > this.#maxTransactions) {
      this.#trimRecords();
    }
  }

  /**
   * Forgets the oldest retained transactions beyond the limit (never serialized if not yet
   * written); the arrays are compacted once the forgotten prefix is at least half of them, so
   * trimming costs O(1) amortized per transaction.
   */
  #trimRecords(): void {
    const excess = this.#records.length - this.#head - this.#maxTransactions;
    if (excess <= 0) {
      return;
    }
    this.#head += excess;
    this.#forgotten += excess;
    if (this.#head >= 1024 && this.#head * 2 >= this.#records.length) {
      this.#compact();
    }
  }

  /** Releases the forgotten prefix of #records / #lines. */
  #compact(): void {
    if (this.#head === 0) {
      return;
    }
    this.#records = this.#records.slice(this.#head);
    this.#lines = this.#lines.slice(Math.min(this.#head, this.#lines.length));
    this.#head = 0;
  }

  /** Writes the JSON lines of the retained transactions not yet written; returns the retained lines. */
  #serialize(): string[] {
    this.#compact();
    const lines = this.#lines;
    const records = this.#records;
    const base = this.#base;
    if (base != undefined) {
      for (let i = lines.length; i < records.length; i++) {
        lines.push(transactionLine(records[i]!.tx, base, records[i]!.sensor));
      }
    }
    return lines;
  }

  #addPose(pose: FusedPose): void {
    if (this.#maxPoses === 0) {
      return;
    }
    this.#trajectory = makeRoom(this.#trajectory, this.#maxPoses);
    this.#trajectory.push(pose);
  }

  #resolveTopic(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
    if (params.topic == undefined && typeof params.slot === "number") {
      const input = this.#inputs[params.slot];
      if (input == undefined) {
        throw new RangeError(`fusion sensor slot ${params.slot} is not one of the ${this.#inputs.length} pipeline inputs`);
      }
      return { ...params, topic: input.topic };
    }
    return { ...params };
  }

  #createSensor(type: string, p: Record<string, unknown>): SensorModel {
    switch (type) {
      case "fuse_models::Odometry2D":
        return new Odometry2D(p as unknown as Odometry2DOptions);
      case "fuse_models::Imu2D":
        return new Imu2D(p as unknown as Imu2DOptions);
      case "fuse_models::Pose2D":
        return new Pose2D(p as unknown as Pose2DOptions);
      case "fuse_models::Twist2D":
        return new Twist2D(p as unknown as Twist2DOptions);
      case "fuse_models::Acceleration2D":
        return new Acceleration2D(p as unknown as Acceleration2DOptions);
      default:
        return new Unicycle2DIgnition(p);
    }
  }

  /** Warns when an Imu2D with an orientation target frame sits on a rotated mount. */
  #checkImuMounting(): void {
    for (const [name, s] of this.#config.sensors) {
      const target = s.params.orientationTargetFrame;
      if (s.type !== "fuse_models::Imu2D" || typeof target !== "string" || target === "") {
        continue;
      }
      const mode = (s.params.orientationTransform as string | undefined) ?? "fuse";
      this.#pendingImuCheck.push({ name, target, mode });
    }
  }

  readonly #pendingImuCheck: { name: string; target: string; mode: string }[] = [];

  #tick(now: Stamp): void {
    while (this.#nextTick != undefined && now >= this.#nextTick) {
      this.#cycle();
      this.#nextTick += this.#config.optimizer.updatePeriod;
    }
  }

  #cycle(): void {
    this.#pending.sort((a, b) => a.tx.stamp - b.tx.stamp);
    if (!this.#started) {
      const ign = this.#pending.find((p) => this.#config.sensors.get(p.sensor)?.ignition === true);
      if (ign == undefined) {
        const newest = this.#pending.at(-1)?.tx.stamp ?? 0;
        this.#pending = this.#pending.filter((p) => {
          const keep = p.tx.maxStamp() + this.#config.optimizer.transactionTimeout >= newest;
          if (!keep) {
            this.#dropTx(p, "transaction timed out before ignition");
          }
          return keep;
        });
        return;
      }
      this.#started = true;
      const startStamp = ign.tx.minStamp();
      this.#pending = this.#pending.filter((p) => {
        const keep = p === ign || p.tx.minStamp() >= startStamp;
        if (!keep) {
          this.#dropTx(p, "older than the ignition transaction that started the run");
        }
        return keep;
      });
      // fuse processes the ignition transaction alone in its first cycle.
      this.#process([ign]);
      this.#pending = this.#pending.filter((p) => p !== ign);
      return;
    }
    const batch = this.#pending;
    this.#pending = [];
    this.#process(batch);
  }

  #process(batch: Pending[]): void {
    if (batch.length === 0) {
      return;
    }
    const newest = batch.at(-1)!.tx.stamp;
    const expiration = this.#optimizer?.lagExpiration ?? -Infinity;
    let cycleTx: Transaction | undefined;
    for (const p of batch) {
      const minStamp = p.tx.minStamp();
      if (minStamp < expiration) {
        this.#dropTx(
          p,
          `its oldest involved stamp is ${(expiration - minStamp) / NS_PER_SEC} s older than the lag expiration`,
        );
        continue;
      }
      const cfg = this.#config.sensors.get(p.sensor)!;
      let ok = true;
      for (const m of cfg.motionModels) {
        ok = this.#motion.get(m)!.apply(p.tx) && ok;
      }
      if (!ok) {
        if (p.tx.maxStamp() + this.#config.optimizer.transactionTimeout < newest) {
          this.#dropTx(p, "the motion model could not connect the transaction before the timeout");
        } else {
          this.#pending.push(p);
        }
        continue;
      }
      this.#record(p.sensor, p.tx);
      cycleTx = cycleTx ? cycleTx.merge(p.tx, { overwrite: true }) : p.tx.clone();
    }
    if (cycleTx == undefined || cycleTx.empty()) {
      return;
    }
    let graph: ReadonlyGraph;
    if (this.#optimizer) {
      this.#optimizer.update(cycleTx);
      this.#optimizer.optimize();
      graph = this.#optimizer.graph;
    } else {
      this.#graph!.update(cycleTx);
      graph = this.#graph!;
    }
    this.#updateFinalPose(graph, cycleTx.maxStamp());
    for (const m of this.#motion.values()) {
      m.graphCallback(graph);
    }
    for (const s of this.#sensors.values()) {
      s.graphCallback(graph);
    }
    this.#runImuCheck();
  }

  #dropTx(p: Pending, detail: string): void {
    const topic = this.#sensors.get(p.sensor)?.topics[0] ?? "";
    this.#context!.drop({ sensor: p.sensor, topic, stamp: p.tx.stamp, reason: "too-late", detail });
  }

  #updateFinalPose(graph: ReadonlyGraph, stamp: Stamp): void {
    const ids = this.#context!.uuids;
    const p = graph.findVariable(ids.uuid(POSITION_2D, stamp));
    const o = graph.findVariable(ids.uuid(ORIENTATION_2D, stamp));
    if (p && o) {
      this.#finalPose = { stamp, x: p.data[0]!, y: p.data[1]!, yaw: o.data[0]! };
    }
  }

  #runImuCheck(): void {
    if (this.#warnedOrientation || this.#pendingImuCheck.length === 0 || this.#transforms == undefined) {
      return;
    }
    if (!this.#pendingImuCheck.every((c) => this.#imuFrames.has(c.name))) {
      return;
    }
    this.#warnedOrientation = true;
    for (const c of this.#pendingImuCheck) {
      this.#warnImu(c);
    }
  }

  #warnImu(c: { name: string; target: string; mode: string }): void {
    for (const frame of this.#imuFrames.get(c.name) ?? []) {
      let t: RigidTransform;
      try {
        t = this.#transforms!.lookup(c.target, frame);
      } catch {
        continue;
      }
      const [x, y] = t.rotation;
      // "fuse" and "body" agree only when the mount has no roll/pitch component.
      if (Math.abs(x) > 1e-6 || Math.abs(y) > 1e-6) {
        this.#warnings.push(
          `sensor "${c.name}": the IMU frame "${frame}" is rotated (roll/pitch) relative to "${c.target}"; ` +
            `fuse's orientation transform (q_${c.target}_${frame} ⊗ q_measured, orientationTransform "fuse") and the body attitude ` +
            `(q_measured ⊗ q_${c.target}_${frame}⁻¹, "body") disagree; using "${c.mode}"`,
        );
      }
    }
  }

  readonly #imuFrames = new Map<string, Set<string>>();
}

/** The newest `n` entries of `list` (the list itself when it is short enough). */
function keepNewest<T>(list: T[], n: number): T[] {
  return list.length <= n ? list : list.slice(list.length - n);
}

/**
 * `list` with room for one more entry under `max`: when full, the oldest quarter (at least one)
 * is dropped at once, so that keeping a bounded list costs O(1) amortized per entry.
 */
function makeRoom<T>(list: T[], max: number): T[] {
  return list.length < max ? list : keepNewest(list, max - Math.max(1, Math.floor(max / 4)));
}

/** ROS 1 stamps carry `nsec`, ROS 2 `nanosec`; undefined when the message has no header stamp. */
function detectRecipe(message: unknown): UuidRecipe | undefined {
  const stamp = (message as { header?: { stamp?: Record<string, unknown> } } | undefined)?.header?.stamp;
  if (stamp == undefined) {
    return undefined;
  }
  return "nanosec" in stamp ? "ros2" : "ros1";
}
