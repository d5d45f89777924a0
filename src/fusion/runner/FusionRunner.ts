import { ImuMountCheck } from "./ImuMountCheck";
import { TransactionLog, type TransactionRecord } from "./TransactionLog";
import { frameIdOf, readHeader, type MessageHeader, type StampProblem } from "../../messages";
import type { Stamp, TimeBase } from "../../time";
import { FusionConfigError, parseFusionConfig, type FusionConfig, type SensorConfig } from "../config";
import {
  ORIENTATION_3D,
  POSITION_3D,
  StampedUuids,
  type FusionContext,
  type FusionDrop,
  type MotionModel,
  type ReadonlyGraph,
  type RigidTransform,
  type SensorModel,
  type Transaction,
  type TransactionJson,
  type TransformLookup,
  type UuidRecipe,
} from "../core";
import { rpyOfQuaternion } from "../math/rotation3d";
import { BatchOptimizer, FixedLagSmoother } from "../optimizer";
import { finalPoseText, transactionCountText } from "./fusionSummaryText";

/** Something that looks transforms up and throws when it cannot (the pipeline's TransformBuffer). */
export interface ThrowingTransformSource {
  lookup(target: string, source: string, stamp?: Stamp): RigidTransform;
}

const NO_COUNTS: ReadonlyMap<string, number> = new Map();

/** A fused pose (DESIGN §3.3 summary `fusion.finalPose`); a 2D state has z, roll and pitch 0. */
export interface FusedPose {
  readonly stamp: Stamp;
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly roll: number;
  readonly pitch: number;
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
  readonly input: { readonly topic: string; readonly message: unknown; readonly schemaName?: string; readonly decodeError?: string };
  readonly arrival: Stamp | undefined;
  /** The message's header as the pipeline read it (read here when the event has none). */
  readonly header?: MessageHeader | StampProblem;
}

/** Options of FusionRunner. */
export interface FusionRunnerOptions {
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

/**
 * Runs fuse's sensor models, motion models and optimizer over a message stream, the way fuse's
 * optimizer node does (reference/fuse.md §1.6, §6.4), as a pipeline extension (`name`, `topics`,
 * `start`, `message`, `finish`, `summary`, `describe`, `outputs`) without importing the pipeline.
 *
 * Plugins come from the registry (src/fusion/registry) through the validated config. Messages go
 * to the sensors subscribed to their topic (sensors start at the first message, so "now" is that
 * message's receive time); sensor transactions go to fuse's FixedLagSmoother or BatchOptimizer,
 * driven by the receive-time clock (`spinUntil` before each message). Every transaction the
 * optimizer accepts (after its motion models) is recorded in a TransactionLog (DESIGN §3.4 lines,
 * bounded retention, streaming through `onTransaction`); every dropped message or transaction is
 * reported once with its reason; the fused pose after each cycle is the Odometry publisher's
 * estimate.
 *
 * Errors: a config problem is a FusionConfigError with the JSON path (at construction; a sensor
 * `slot` outside the inputs at construction or `start`; a sensor topic whose message type the
 * sensor cannot read at its first message).
 *
 * Memory: by default every transaction, pose and drop is kept (the CLI writes them all at the
 * end). A long-running consumer bounds it with `setRetention` and/or takes the output
 * incrementally with `drainTransactions()` / `drainTrajectory()` or the `onTransaction` stream.
 * Everything else is bounded by the optimizer's lag and the motion models' buffers.
 */
export class FusionRunner {
  public readonly name = "fusion";
  readonly #config: FusionConfig;
  readonly #options: FusionRunnerOptions;
  #base: TimeBase | undefined;
  #transforms: ThrowingTransformSource | undefined;
  #inputs: readonly { readonly topic: string }[] = [];
  readonly #sensors = new Map<string, SensorModel>();
  readonly #motion = new Map<string, MotionModel>();
  #optimizer: FixedLagSmoother | BatchOptimizer | undefined;
  #log: TransactionLog | undefined;
  readonly #streams: ((record: TransactionRecord) => void)[] = [];
  #maxTransactions = Infinity;
  #maxPoses = Infinity;
  #maxDrops = Infinity;
  #pluginsStarted = false;
  #now: Stamp = 0;
  #drops: FusionDrop[] = [];
  readonly #warnings: string[] = [];
  readonly #dropCounts = new Map<string, number>();
  #finalPose: FusedPose | undefined;
  #trajectory: FusedPose[] = [];
  #recipe: UuidRecipe | undefined;
  #uuids: StampedUuids | undefined;
  readonly #mountCheck: ImuMountCheck;
  /** Whether a cycle has added a Position3D variable (before that, no cycle has a 3D pose to read). */
  #hasPosition3D = false;
  /**
   * Per topic seen, the sensors reading it that cannot read its message type, with the error
   * (empty: every sensor reading it can). The first message of such a topic throws the error; the
   * later ones are that sensor's `undecodable` drops, so none reaches a sensor that would misread
   * it, and sensors that read the type still get every message.
   */
  readonly #typeChecks = new Map<string, ReadonlyMap<string, FusionConfigError>>();
  /** Topics a message arrived on (sensor topics never seen are named at `finish`). */
  readonly #seenTopics = new Set<string>();

  /**
   * `fusion` is the raw config section (validated here; throws FusionConfigError with a path, also
   * for a sensor `slot` outside `options.inputs` when those are given).
   */
  public constructor(fusion: unknown, options: FusionRunnerOptions = {}) {
    this.#config = parseFusionConfig(fusion);
    this.#options = options;
    this.#recipe = this.#config.uuidRecipe;
    this.#mountCheck = new ImuMountCheck(this.#config);
    if (options.inputs != undefined) {
      this.#checkSlots(options.inputs);
    }
  }

  /**
   * Bounds what the runner keeps of its output (FusionRetention; each limit a non-negative
   * integer or Infinity, default Infinity): the oldest transactions, poses and drop records
   * beyond a limit are forgotten at once and from then on. Forgotten transactions are neither in
   * `transactionLines` nor in `outputs()` (a stream listener still saw them). Throws RangeError for
   * a negative or fractional limit. Returns this.
   */
  public setRetention(retention: FusionRetention): this {
    this.#maxTransactions = checkLimit(retention.transactions, "transactions");
    this.#maxPoses = checkLimit(retention.poses, "poses");
    this.#maxDrops = checkLimit(retention.drops, "drops");
    this.#log?.setLimit(this.#maxTransactions);
    this.#trajectory = keepNewest(this.#trajectory, this.#maxPoses);
    this.#drops = keepNewest(this.#drops, this.#maxDrops);
    return this;
  }

  /**
   * Streams every transaction recorded from now on (in order, once each, whatever the retention):
   * the hook for writers that must not hold a whole recording's transactions. Returns this.
   */
  public onTransaction(listener: (record: TransactionRecord) => void): this {
    this.#streams.push(listener);
    this.#log?.onTransaction(listener);
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
      const topic = topicOf(s);
      if (topic != undefined) {
        out.add(topic);
      }
    }
    return [...out];
  }

  /**
   * Checks the sensors' topics against a recording's channels before it is read (what `message`
   * checks at each topic's first message): throws FusionConfigError for the first sensor whose
   * topic carries a message type it does not read.
   */
  public checkChannels(channels: readonly { readonly topic: string; readonly schemaName: string }[]): void {
    for (const channel of channels) {
      const [first] = this.#typeMismatches(channel.topic, channel.schemaName).values();
      if (first) {
        throw first;
      }
    }
  }

  /** The retained transactions, as JSON lines (DESIGN §3.4), oldest first. */
  public get transactionLines(): readonly string[] {
    return this.#log?.lines() ?? [];
  }

  /**
   * Hands out the retained transactions as JSON lines (oldest first) and forgets them: each call
   * returns what was recorded since the previous drain (minus what the retention limit dropped
   * meanwhile).
   */
  public drainTransactions(): string[] {
    return this.#log?.drain() ?? [];
  }

  /**
   * `drainTransactions` as DESIGN §3.4 objects instead of lines (for a consumer that passes them
   * on structured, such as the panel's worker): the same transactions, never turned into text.
   */
  public drainTransactionJson(): TransactionJson[] {
    return this.#log?.drainJson() ?? [];
  }

  /** Number of transactions recorded so far (the whole run). */
  public get transactionCount(): number {
    return this.#log?.count ?? 0;
  }

  /** Transactions recorded so far per sensor (the whole run), in the order the sensors first sent one. */
  public get transactionsBySensor(): ReadonlyMap<string, number> {
    return this.#log?.perSensor ?? NO_COUNTS;
  }

  /**
   * Dropped messages so far per reason (the whole run, whatever the `drops` retention keeps), in
   * the order the reasons first occurred.
   */
  public get dropCounts(): ReadonlyMap<string, number> {
    return this.#dropCounts;
  }

  /** Number of transactions currently retained (not drained or forgotten). */
  public get retainedTransactionCount(): number {
    return this.#log?.retainedCount ?? 0;
  }

  /**
   * Every dropped message (once each), oldest first; with a `drops` retention limit only the
   * newest that many (the summary's counts cover all).
   */
  public get drops(): readonly FusionDrop[] {
    return this.#drops;
  }

  /** Warnings (e.g. the IMU mount check). */
  public get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** The latest fused pose (after the last cycle), if any. */
  public get finalPose(): FusedPose | undefined {
    return this.#finalPose;
  }

  /** The retained fused poses, one per optimization cycle, in order (the fused trajectory). */
  public get trajectory(): readonly FusedPose[] {
    return this.#trajectory;
  }

  /** Hands out the retained fused poses (oldest first) and forgets them. */
  public drainTrajectory(): FusedPose[] {
    const out = this.#trajectory;
    this.#trajectory = [];
    return out;
  }

  /** The optimizer's graph (undefined before the first message). */
  public get graph(): ReadonlyGraph | undefined {
    return this.#optimizer?.graph;
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
    this.#log = new TransactionLog(context.timeBase, this.#maxTransactions);
    for (const l of this.#streams) {
      this.#log.onTransaction(l);
    }
  }

  /**
   * One message (any topic), with its relative receive time. Throws FusionConfigError at the
   * first message of a topic whose type a sensor reading it does not read, after the sensors that
   * can read it have it; later messages of that topic are that sensor's `undecodable` drops. A
   * message whose bytes did not decode is each reading sensor's `undecodable` drop.
   */
  public message(event: RunnerMessageEvent): void {
    this.#seenTopics.add(event.input.topic);
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
    this.#optimizer!.spinUntil(arrival);
    const topic = event.input.topic;
    let mismatches = this.#typeChecks.get(topic);
    const first = mismatches == undefined;
    if (mismatches == undefined) {
      mismatches = this.#typeMismatches(topic, event.input.schemaName);
      this.#typeChecks.set(topic, mismatches);
    }
    let header = event.header;
    for (const [name, sensor] of this.#sensors) {
      if (sensor.topics.includes(topic)) {
        const mismatch = mismatches.get(name);
        if (mismatch != undefined) {
          if (!first) {
            this.#drop({ sensor: name, topic, stamp: NaN, reason: "undecodable", detail: mismatch.message });
          }
          continue;
        }
        const decodeError = event.input.decodeError;
        if (decodeError != undefined) {
          // Its bytes did not decode: it has no header to read (not a "no-header" message).
          this.#drop({ sensor: name, topic, stamp: NaN, reason: "undecodable", detail: decodeError });
          continue;
        }
        header ??= readHeader(event.input.message, this.#base);
        this.#mountCheck.sawFrame(name, typeof header === "string" ? frameIdOf(event.input.message) : header.frameId);
        sensor.handleMessage({ topic, message: event.input.message, receiveTime: arrival, header });
      }
    }
    if (first) {
      const [error] = mismatches.values();
      if (error) {
        throw error;
      }
    }
  }

  /**
   * End of stream: runs the remaining cycles, stops the plugins, and warns of each sensor topic
   * no message arrived on (a sensor that contributed nothing, silently otherwise). Topics a model
   * only may receive (the ignition sensors' `set_pose`, which has a default) are not named.
   */
  public finish(): void {
    for (const [name, cfg] of this.#config.sensors) {
      const topic = topicOf(cfg);
      if (topic != undefined && cfg.descriptor.defaultTopic == undefined && !this.#seenTopics.has(topic)) {
        this.#warnings.push(`fusion.sensors.${name}.topic: no message arrived on "${topic}", so ${name} (${cfg.type}) contributed nothing`);
      }
    }
    if (!this.#pluginsStarted) {
      return;
    }
    const opt = this.#optimizer!;
    if (opt instanceof FixedLagSmoother) {
      opt.flush();
    } else {
      opt.optimizeNow();
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
      transactions: this.transactionCount,
      fusion: {
        finalPose:
          pose && base
            ? { stamp: base.format(pose.stamp), x: pose.x, y: pose.y, z: pose.z, roll: pose.roll, pitch: pose.pitch, yaw: pose.yaw }
            : null,
        transactionsBySensor: Object.fromEntries(this.transactionsBySensor),
        drops: Object.fromEntries(this.#dropCounts),
        optimized: true,
        uuidRecipe: this.#recipe ?? null,
        warnings: [...this.#warnings],
      },
    };
  }

  /** Lines for the human summary. */
  public describe(): string[] {
    const lines = [`fusion: ${transactionCountText(this.transactionCount, this.transactionsBySensor)}`];
    const p = this.#finalPose;
    if (p && this.#base) {
      lines.push(`fusion: ${finalPoseText(p, this.#base.formatSeconds(p.stamp))}`);
    }
    for (const w of this.#warnings) {
      lines.push(`fusion warning: ${w}`);
    }
    return lines;
  }

  /** The transactions recorded since the previous drain, as `transactions.jsonl` lines (see `drainTransactions`). */
  public drain(): { file: string; lines: Iterable<string> }[] {
    return [{ file: "transactions.jsonl", lines: this.drainTransactions() }];
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

  /** The sensors reading `topic` that cannot read its message type, each with its FusionConfigError. */
  #typeMismatches(topic: string, schemaName: string | undefined): Map<string, FusionConfigError> {
    const out = new Map<string, FusionConfigError>();
    if (schemaName == undefined || schemaName === "") {
      return out;
    }
    const type = rosMessageType(schemaName);
    for (const [name, cfg] of this.#config.sensors) {
      if (topicOf(cfg) === topic && !cfg.descriptor.messageTypes.includes(type)) {
        out.set(
          name,
          new FusionConfigError(
            `fusion.sensors.${name}.topic`,
            `topic "${topic}" carries ${schemaName}, but ${cfg.type} reads ${cfg.descriptor.messageTypes.join(" or ")}; ` +
              `choose a topic of that type or another sensor model`,
          ),
        );
      }
    }
    return out;
  }

  #startPlugins(): void {
    const base = this.#base!;
    const source = this.#transforms;
    const lookup: TransformLookup | undefined = source
      ? {
          lookup: (target, from, stamp) => {
            try {
              return source.lookup(target, from, stamp);
            } catch {
              return undefined;
            }
          },
        }
      : undefined;
    const context: FusionContext = {
      timeBase: base,
      uuids: (this.#uuids = new StampedUuids(base, this.#recipe!)),
      transforms: lookup,
      drop: (d) => { this.#drop(d); },
      warn: (m) => this.#warnings.push(m),
      now: () => this.#now,
    };
    const opt = this.#createOptimizer();
    for (const [name, m] of this.#config.motionModels) {
      const model = m.descriptor.create(m.params);
      model.initialize(context, name);
      this.#motion.set(name, model);
      opt.addMotionModel(name, model);
    }
    for (const [name, s] of this.#config.sensors) {
      const sensor = s.descriptor.create(this.#resolveTopic(s));
      sensor.initialize(context, name, (tx) => { opt.transactionCallback(name, tx); });
      this.#sensors.set(name, sensor);
      opt.addSensor(name, { motionModels: s.motionModels, ignition: s.ignition });
    }
    this.#optimizer = opt;
    this.#pluginsStarted = true;
    for (const m of this.#motion.values()) {
      m.start();
    }
    for (const s of this.#sensors.values()) {
      s.start();
    }
  }

  /** fuse's optimizer (FixedLagSmoother or BatchOptimizer per `optimizer.type`), wired to the runner. */
  #createOptimizer(): FixedLagSmoother | BatchOptimizer {
    const o = this.#config.optimizer;
    const solver = { maxIterations: o.maxIterations };
    // The runner reads only the estimate's pose, and its listeners (fuse_models sensors, the
    // motion models) copy what they need from the graph during the call: no covariance solve and
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
    opt.onTransactionProcessed((sensor, tx) => { this.#log!.record(sensor, tx); });
    opt.onDrop((d) => {
      const topic = this.#sensors.get(d.sensor)?.topics[0] ?? "";
      this.#drop({ sensor: d.sensor, topic, stamp: d.stamp, reason: d.reason, detail: d.detail });
    });
    opt.onEstimate((e) => {
      this.#finalPose = { stamp: e.stamp, x: e.x, y: e.y, z: 0, roll: 0, pitch: 0, yaw: e.yaw };
      this.#addPose(this.#finalPose);
    });
    opt.onNotify((tx, graph) => {
      this.#read3DPose(tx, graph);
      for (const s of this.#sensors.values()) {
        s.graphCallback(graph);
      }
      this.#warnings.push(...this.#mountCheck.run(this.#mountLookup()));
    });
    return opt;
  }

  /**
   * The fused 3D pose after a cycle (the Odometry3DPublisher's pose): the newest involved stamp
   * with Position3D and Orientation3D (device NIL) in the graph. Nothing for a 2D graph.
   */
  #read3DPose(tx: Transaction, graph: ReadonlyGraph): void {
    // Every graph variable came with a cycle's transaction: until one brings a Position3D, the
    // lookups below can only miss, and a 2D graph is spared hashing 3D UUIDs every cycle.
    this.#hasPosition3D ||= tx.addedVariables.some((v) => v.type === POSITION_3D);
    if (!this.#hasPosition3D) {
      return;
    }
    const ids = this.#uuids!;
    const stamps = tx.involvedStamps;
    for (let i = stamps.length - 1; i >= 0; i--) {
      const stamp = stamps[i]!;
      const p = graph.findVariable(ids.uuid(POSITION_3D, stamp));
      if (p == undefined) {
        continue;
      }
      const o = graph.findVariable(ids.uuid(ORIENTATION_3D, stamp));
      if (o == undefined) {
        continue;
      }
      const rpy = new Float64Array(3);
      rpyOfQuaternion(o.data, 0, rpy, 0);
      this.#finalPose = { stamp, x: p.data[0]!, y: p.data[1]!, z: p.data[2]!, roll: rpy[0]!, pitch: rpy[1]!, yaw: rpy[2]! };
      this.#addPose(this.#finalPose);
      return;
    }
  }

  #mountLookup(): ((target: string, source: string) => RigidTransform | undefined) | undefined {
    const source = this.#transforms;
    if (source == undefined) {
      return undefined;
    }
    return (target, from) => {
      try {
        return source.lookup(target, from);
      } catch {
        return undefined;
      }
    };
  }

  #drop(d: FusionDrop): void {
    if (this.#maxDrops > 0) {
      this.#drops = makeRoom(this.#drops, this.#maxDrops);
      this.#drops.push(d);
    }
    this.#dropCounts.set(d.reason, (this.#dropCounts.get(d.reason) ?? 0) + 1);
  }

  #addPose(pose: FusedPose): void {
    if (this.#maxPoses === 0) {
      return;
    }
    this.#trajectory = makeRoom(this.#trajectory, this.#maxPoses);
    this.#trajectory.push(pose);
  }

  /** The sensor's parameters with its topic resolved (a `slot` names a pipeline input). */
  #resolveTopic(s: SensorConfig): Record<string, unknown> {
    const params = s.params;
    if (params.topic == undefined && typeof params.slot === "number") {
      return { ...params, topic: this.#inputs[params.slot]!.topic };
    }
    return { ...params };
  }
}

function checkLimit(v: number | undefined, what: string): number {
  const n = v ?? Infinity;
  if (!(n >= 0) || (n !== Infinity && !Number.isInteger(n))) {
    throw new RangeError(`FusionRunner.setRetention: ${what} must be a non-negative integer or Infinity, got ${String(v)}`);
  }
  return n;
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

/** "nav_msgs/msg/Odometry" (ROS 2) → "nav_msgs/Odometry"; ROS 1 names unchanged. */
function rosMessageType(schemaName: string): string {
  return schemaName.replace("/msg/", "/");
}

/** ROS 1 stamps carry `nsec`, ROS 2 `nanosec`; undefined when the message has no header stamp. */
function detectRecipe(message: unknown): UuidRecipe | undefined {
  const stamp = (message as { header?: { stamp?: Record<string, unknown> } } | undefined)?.header?.stamp;
  if (stamp == undefined) {
    return undefined;
  }
  return "nanosec" in stamp ? "ros2" : "ros1";
}

/** The topic a sensor reads: its `topic` parameter, else its model's default unless it reads a sync `slot`. */
function topicOf(sensor: SensorConfig): string | undefined {
  if (typeof sensor.params.topic === "string") {
    return sensor.params.topic;
  }
  return sensor.params.slot == undefined ? sensor.descriptor.defaultTopic : undefined;
}
