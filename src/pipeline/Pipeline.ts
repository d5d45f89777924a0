import { TransformBuffer } from "../filters/tf";
import { nsecOf, readHeader, readTransforms, type MessageHeader, type StampProblem } from "../messages";
import { stampPathProblem } from "../messages/stampPathCheck";
import { DEFAULT_STAMP_SOURCE, stampReaderFor, stampSourceProblem, type StampReader } from "../messages/stampSources";
import { secNsecText, TimeBase, type Stamp } from "../time";
import { ConfigError } from "./ConfigError";
import { PipelineStats } from "./PipelineStats";
import { SyncGraph, type BufferState, type SyncGraphOptions } from "./SyncGraph";
import type { PipelineConfig } from "./config";
import { configTransform } from "./transformConfig";
import type {
  PipelineDrop,
  PipelineExtension,
  PipelineInput,
  PipelineMessageEvent,
  PipelineTuple,
  RecordedChannelFacts,
  SlotItem,
  UnstampedReason,
} from "./types";
import type { DropReason } from "../time/DropReason";

/** Options of a Pipeline. */
export interface PipelineOptions {
  /** Values kept per statistic for percentiles (reservoir size). Default 4096. */
  readonly sampleSize?: number;
  /** Example drops kept per reason. Default 5. */
  readonly dropExamples?: number;
  /** Topics whose messages carry tf2_msgs/TFMessage. Default ["/tf"] and ["/tf_static"] (static). */
  readonly tfTopics?: readonly string[];
  readonly tfStaticTopics?: readonly string[];
  /** When a queueing buffer forwards to the combiner (see SyncGraphOptions). Default "on-push". */
  readonly bufferDrain?: SyncGraphOptions["drain"];
}

const NO_SLOTS: readonly number[] = Object.freeze([]);
/** Messages held at most while the first header stamps disagree about the time base. */
const MAX_PENDING = 64;

/**
 * The running pipeline a config describes (DESIGN §3.2): input topics → Buffer → Combiner(policy)
 * → tuples (the `SyncGraph` that `lockstep replay` runs too), plus a TransformBuffer (fed by /tf, /tf_static and the config's static transforms),
 * statistics and tuning hints. Runs in Node, the browser and a Web Worker (no I/O).
 *
 * Guarantees:
 * - Push messages in receive order; tuples and drops are delivered synchronously from `push`.
 * - The time base is the whole second of the first header stamp that a later one agrees with
 *   (both in one time window), so one stamp from another clock at the start cannot exile the
 *   rest; until two agree (at most a few messages) messages are held and then processed in push
 *   order with their own indices. The policy is rebuilt on the base then. Config errors surface
 *   in the constructor.
 * - Every input message is either used in tuples, dropped once with a reason (`no-header`,
 *   `zero-stamp`, `invalid-stamp` for nsec >= 1e9 or a stamp outside the window, `undecodable`
 *   for a message whose `decodeError` is set, the policy's reasons, `discarded` for a Discard
 *   buffer), or still held by the policy at the end (`statistics().heldAtEnd`).
 * - Receive times may come from another clock than the stamps (a live app's wall clock): the
 *   offset is taken from the first message, in whole seconds, and reported (`receiveClockOffset`).
 * - Memory is bounded: counters, fixed-size reservoirs and a few examples per drop reason.
 *
 * Buffer: `buffer.policy` "discard" drops every input message (`discarded`); "passthru" (the
 * default) delivers at once; "queue" holds at most `buffer.maxQueueSize` messages, dropping the
 * oldest (`queue-overflow`). By default the queue is drained after every message, like a consumer
 * that keeps up (an analysis); with `bufferDrain: "manual"` the owner calls `processQueued` (a live
 * view working in slices) and `buffer` tells how many are queued and dropped.
 *
 * ```ts
 * const pipeline = new Pipeline(parseConfig(json));
 * pipeline.onTuple((t) => console.log(t.stamps));
 * for await (const m of recording.messages({ topics: pipeline.topics })) pipeline.push(m);
 * pipeline.finish();
 * ```
 */
export class Pipeline<M extends PipelineInput = PipelineInput> {
  public readonly config: PipelineConfig;
  /** Fed by /tf, /tf_static and `config.transforms`. */
  public readonly transforms = new TransformBuffer();
  readonly #slotsByTopic = new Map<string, number[]>();
  /** How each input topic's stamp is read (`inputs[].stamp`). */
  readonly #stampReaders = new Map<string, StampReader>();
  readonly #inputTopics: string[];
  readonly #tfTopics: Set<string>;
  readonly #tfStaticTopics: Set<string>;
  readonly #sampleSize: number;
  readonly #dropExamples: number;
  readonly #extensions: PipelineExtension<M>[] = [];
  #tupleObservers: readonly ((t: PipelineTuple<M>) => void)[] = [];
  #dropObservers: readonly ((d: PipelineDrop<M>) => void)[] = [];
  #timeBase: TimeBase | undefined;
  readonly #graph: SyncGraph<SlotItem<M>>;
  #index = -1;
  #newestStamp = -Infinity;
  #finished = false;
  /** Messages held (in push order, with their indices) until two header stamps fix the time base. */
  #pending: { input: M; index: number }[] = [];
  /** Receive clock − stamp clock, whole seconds (see `receiveClockOffset`). */
  #receiveOffset: number | undefined;
  readonly #stats: PipelineStats;

  public constructor(config: PipelineConfig, options: PipelineOptions = {}) {
    this.config = config;
    if (!config.inputs || config.inputs.length === 0) {
      throw new ConfigError([
        { path: "/inputs", message: 'a pipeline over topics needs "inputs": [{"topic": …}, …]' },
      ]);
    }
    this.#inputTopics = [];
    const stampIssues: { path: string; message: string }[] = [];
    config.inputs.forEach((input, slot) => {
      const source = input.stamp ?? DEFAULT_STAMP_SOURCE;
      const problem = stampSourceProblem(source);
      const earlier = config.inputs!.findIndex((other) => other.topic === input.topic);
      if (problem != undefined) {
        stampIssues.push({ path: `/inputs/${slot}/stamp`, message: problem });
      } else if (earlier < slot && (config.inputs![earlier]!.stamp ?? DEFAULT_STAMP_SOURCE) !== source) {
        stampIssues.push({ path: `/inputs/${slot}/stamp`, message: `"${input.topic}" is also input ${earlier} with another stamp source; one topic has one stamp source` });
      } else if (earlier === slot) {
        this.#stampReaders.set(input.topic, stampReaderFor(source));
      }
    });
    if (stampIssues.length > 0) {
      throw new ConfigError(stampIssues);
    }
    config.inputs.forEach((input, slot) => {
      const list = this.#slotsByTopic.get(input.topic);
      if (list) {
        list.push(slot);
      } else {
        this.#slotsByTopic.set(input.topic, [slot]);
        this.#inputTopics.push(input.topic);
      }
    });
    // Built on base 0 so policy errors surface now; rebuilt on the real base at the first stamp.
    this.#graph = new SyncGraph<SlotItem<M>>(
      config,
      new TimeBase(0),
      {
        tuple: (items) => {
          this.#emitTuple(items);
        },
        drop: (stage, slot, stamp, item, reason, detail) => {
          if (stage === "policy") {
            this.#stats.policyDropped[slot]!++;
          }
          this.#emitDrop(item.input, slot, stamp, reason, detail, this.#index);
        },
        accepted: (item) => {
          this.#stats.accepted[item.slot]!++;
        },
      },
      { drain: options.bufferDrain },
    );
    this.#tfTopics = new Set(options.tfTopics ?? ["/tf"]);
    this.#tfStaticTopics = new Set(options.tfStaticTopics ?? ["/tf_static"]);
    this.#sampleSize = options.sampleSize ?? 4096;
    this.#dropExamples = options.dropExamples ?? 5;
    this.#stats = new PipelineStats(config, this.#sampleSize, this.#dropExamples);
    (config.transforms ?? []).forEach((t, i) => {
      try {
        this.transforms.setStaticTransform(t.parent, t.child, configTransform(t));
      } catch (err) {
        throw new ConfigError([
          { path: `/transforms/${i}`, message: err instanceof Error ? err.message : String(err) },
        ]);
      }
    });
  }

  /** The topics a reader must deliver: the inputs, tf topics, and what extensions ask for. */
  public get topics(): string[] {
    const out = new Set([...this.#inputTopics, ...this.#tfTopics, ...this.#tfStaticTopics]);
    for (const ext of this.#extensions) {
      for (const t of ext.topics ?? []) {
        out.add(t);
      }
    }
    return [...out];
  }

  /**
   * Checks the config against a recording's channels before it is read: an input's stamp path
   * against its topic's ROS message definition, where the channel carries one (ConfigError naming
   * `/inputs/<i>/stamp`, the field that is not there and the fields that are), then what each
   * extension reads (its `checkChannels`, which throws its own config error).
   */
  public checkChannels(channels: readonly RecordedChannelFacts[]): void {
    const issues: { path: string; message: string }[] = [];
    this.config.inputs?.forEach((input, slot) => {
      const source = input.stamp ?? DEFAULT_STAMP_SOURCE;
      const channel = channels.find((c) => c.topic === input.topic);
      const encoding = channel?.schemaEncoding;
      if (!source.startsWith(".") || channel?.schemaData == undefined || (encoding !== "ros1msg" && encoding !== "ros2msg")) {
        return;
      }
      const problem = stampPathProblem(source, channel.schemaName, new TextDecoder().decode(channel.schemaData), encoding === "ros2msg" ? "ros2" : "ros1");
      if (problem != undefined) {
        issues.push({ path: `/inputs/${slot}/stamp`, message: `"${source}" is not a stamp of ${input.topic}: ${problem}` });
      }
    });
    if (issues.length > 0) {
      throw new ConfigError(issues);
    }
    for (const ext of this.#extensions) {
      ext.checkChannels?.(channels);
    }
  }

  /** The input topics, in slot order of first appearance. */
  public get inputTopics(): readonly string[] {
    return this.#inputTopics;
  }

  /** The time base (after the first stamp). */
  public get timeBase(): TimeBase | undefined {
    return this.#timeBase;
  }

  /** Register an extension (see PipelineExtension). Must happen before the first push. */
  public use(extension: PipelineExtension<M>): this {
    if (this.#index >= 0) {
      throw new Error(
        `Pipeline.use(${extension.name}): extensions must be registered before the first message`,
      );
    }
    this.#extensions.push(extension);
    return this;
  }

  /** The registered extensions. */
  public get extensions(): readonly PipelineExtension<M>[] {
    return this.#extensions;
  }

  /** Observe every tuple; returns an unsubscribe function. */
  public onTuple(observer: (tuple: PipelineTuple<M>) => void): () => void {
    this.#tupleObservers = [...this.#tupleObservers, observer];
    return () => {
      this.#tupleObservers = this.#tupleObservers.filter((o) => o !== observer);
    };
  }

  /** Observe every drop; returns an unsubscribe function. */
  public onDrop(observer: (drop: PipelineDrop<M>) => void): () => void {
    this.#dropObservers = [...this.#dropObservers, observer];
    return () => {
      this.#dropObservers = this.#dropObservers.filter((o) => o !== observer);
    };
  }

  /**
   * Feed one message (any topic; others than inputs and tf only reach extensions). Throws when
   * called after `finish`, or when a stamp lies outside the time base's ±52-day window (naming
   * the topic and stamp).
   */
  public push(input: M): void {
    if (this.#finished) {
      throw new Error("Pipeline.push after finish()");
    }
    const index = ++this.#index;
    if (this.#timeBase == undefined && (this.#pending.length > 0 || this.#candidateStamp(input) != undefined)) {
      this.#pending.push({ input, index });
      if (this.#confirmTimeBase("wait")) {
        this.#processPending();
      }
      return;
    }
    this.#process(input, index);
  }

  /**
   * The receive clock's offset from the header stamps' clock, in whole seconds (receive time −
   * offset is on the stamps' time base): 0 when they are one clock, as in a recording; the
   * difference when they are not (a live app stamps receive times with its wall clock while the
   * robot's stamps use sim time or another machine's clock). Undefined before the first stamp.
   */
  public get receiveClockOffset(): number | undefined {
    return this.#receiveOffset;
  }

  /**
   * A valid stamp of an input-topic message, read by the input's stamp source (what the policy
   * will get, so what can fix the time base), if it has one.
   */
  #candidateStamp(input: M): { sec: number; nsec: number } | undefined {
    const read = this.#stampReaders.get(input.topic);
    if (read == undefined || input.decodeError != undefined) {
      return undefined;
    }
    const header = read(input);
    if (typeof header === "string") {
      return undefined;
    }
    const nsec = nsecOf(header);
    return Number.isSafeInteger(header.sec) && header.sec >= 0 && Number.isInteger(nsec) && nsec >= 0 && nsec < 1e9
      ? { sec: header.sec, nsec }
      : undefined;
  }

  /**
   * Fixes the time base from the pending messages once two header stamps agree (fit one time
   * window): the base is the earliest stamp a later one agrees with, so one stamp from another
   * clock at the start (1 s after boot before the real 2015 stamps) is dropped as `invalid-stamp`
   * instead of exiling every later message. With "force" (end of stream), or too many pending,
   * the first candidate is used. Returns whether the base is fixed.
   */
  #confirmTimeBase(mode: "wait" | "force"): boolean {
    const force = mode === "force";
    const stamps = this.#pending.map((p) => this.#candidateStamp(p.input)).filter((s) => s != undefined);
    for (let i = 0; i < stamps.length; i++) {
      const base = TimeBase.forFirstSecNsec(stamps[i]!.sec, stamps[i]!.nsec);
      for (let j = i + 1; j < stamps.length; j++) {
        try {
          base.fromSecNsec(stamps[j]!.sec, stamps[j]!.nsec);
          this.#ensureStarted(stamps[i]!.sec, stamps[i]!.nsec);
          return true;
        } catch {
          // disagree: try the next pair
        }
      }
    }
    if ((force || this.#pending.length >= MAX_PENDING) && stamps.length > 0) {
      const last = force ? stamps[0]! : stamps.at(-1)!;
      this.#ensureStarted(last.sec, last.nsec);
      return true;
    }
    return force;
  }

  /** Processes the messages held while the time base was not yet fixed, each with its own index. */
  #processPending(): void {
    const pending = this.#pending;
    this.#pending = [];
    const latest = this.#index;
    for (const p of pending) {
      this.#index = p.index;
      this.#process(p.input, p.index);
    }
    this.#index = latest;
  }

  #process(input: M, index: number): void {
    const topic = input.topic;
    const slots = this.#slotsByTopic.get(topic) ?? NO_SLOTS;
    const isTf = this.#tfTopics.has(topic);
    const isTfStatic = this.#tfStaticTopics.has(topic);
    let stamp: Stamp | undefined;
    let arrival: Stamp | undefined;
    let header: MessageHeader | StampProblem | undefined;
    let unstamped: UnstampedReason | undefined;

    if (isTf || isTfStatic) {
      this.#addTf(input, isTfStatic ? "static" : "dynamic", index);
      arrival = this.#arrival(input);
    } else if (slots.length > 0) {
      const topicStats = this.#stats.topic(topic);
      const sourced = input.decodeError == undefined ? this.#stampReaders.get(topic)!(input) : "undecodable";
      const valid = typeof sourced === "string" ? undefined : this.#validStamp(topic, sourced.sec, nsecOf(sourced));
      if (typeof sourced !== "string" && typeof valid === "string") {
        unstamped = "invalid-stamp";
        arrival = this.#arrival(input);
        topicStats.addMessage(arrival ?? NaN);
        for (const slot of slots) {
          this.#emitDrop(input, slot, NaN, "invalid-stamp", valid, index);
        }
      } else if (sourced === "undecodable") {
        unstamped = "undecodable";
        arrival = this.#arrival(input);
        topicStats.addMessage(arrival ?? NaN);
        for (const slot of slots) {
          this.#emitDrop(input, slot, NaN, "undecodable", input.decodeError, index);
        }
      } else if (typeof sourced === "string") {
        unstamped = sourced;
        if (!this.#timeBase && sourced === "no-header" && this.#policyAcceptsHeaderless()) {
          // A headerless message is matched by its arrival time, so it can start the time base.
          this.#ensureStarted(input.receiveTime.sec, input.receiveTime.nsec);
        }
        arrival = this.#arrival(input);
        topicStats.addMessage(arrival ?? NaN);
        const acceptsHeaderless = sourced === "no-header" && this.#policyAcceptsHeaderless();
        if (acceptsHeaderless && arrival != undefined) {
          for (const slot of slots) {
            this.#feed(slot, NaN, arrival, index, input);
          }
        } else {
          for (const slot of slots) {
            this.#emitDrop(
              input,
              slot,
              NaN,
              sourced,
              sourced === "no-header"
                ? "the message has no header stamp"
                : "the header stamp is 0 (unset)",
              index,
            );
          }
        }
      } else {
        const rel = valid as Stamp;
        stamp = rel;
        const at = this.#arrival(input) ?? rel;
        arrival = at;
        topicStats.addMessage(at);
        topicStats.addStamp(rel, at);
        if (rel > this.#newestStamp) {
          this.#newestStamp = rel;
        }
        for (const slot of slots) {
          this.#feed(slot, rel, at, index, input);
        }
      }
    } else {
      arrival = this.#arrival(input);
      header = this.#timeBase ? readHeader(input.message, this.#timeBase) : undefined;
      stamp = typeof header === "object" ? header.stamp : undefined;
    }

    if (this.#extensions.length > 0) {
      if (header == undefined && this.#timeBase) {
        header = readHeader(input.message, this.#timeBase);
      }
      const event: PipelineMessageEvent<M> = { input, index, slots, stamp, arrival, header, unstamped };
      for (const ext of this.#extensions) {
        ext.message?.(event);
      }
    }
  }

  /** End of stream: extensions finish. Idempotent. */
  public finish(): void {
    if (this.#finished) {
      return;
    }
    if (this.#pending.length > 0) {
      this.#confirmTimeBase("force");
      this.#processPending();
    }
    this.#finished = true;
    for (const ext of this.#extensions) {
      ext.finish?.();
    }
  }

  /** A statistics snapshot (plain data; see PipelineStats). */
  public get statistics(): PipelineStats {
    return this.#stats;
  }

  /** The buffer between the inputs and the combiner: policy, capacity, queued and dropped. */
  public get buffer(): BufferState {
    return this.#graph.buffer;
  }

  /**
   * Forward at most `max` queued messages to the combiner (with `bufferDrain: "manual"`); their
   * tuples and drops are delivered before this returns. Returns how many were forwarded.
   */
  public processQueued(max = Infinity): number {
    return this.#graph.processQueued(max);
  }

  #policyAcceptsHeaderless(): boolean {
    return this.#graph.policy.acceptsHeaderless;
  }

  #arrival(input: M): Stamp | undefined {
    const base = this.#timeBase;
    if (!base) {
      return undefined;
    }
    const { sec, nsec } = input.receiveTime;
    if (this.#receiveOffset == undefined) {
      // The first receive time decides whether receive times share the stamps' clock.
      try {
        base.fromSecNsec(sec, nsec);
        this.#receiveOffset = 0;
      } catch {
        this.#receiveOffset = sec - base.baseSec;
      }
    }
    try {
      return base.fromSecNsec(sec - this.#receiveOffset, nsec);
    } catch {
      return undefined;
    }
  }

  /**
   * The relative stamp of a header stamp, or why it cannot be used (`invalid-stamp`): nsec is not
   * in [0, 1e9), or the stamp lies outside the time window around the base.
   */
  #validStamp(topic: string, sec: number, nsec: number): Stamp | string {
    const text = secNsecText(sec, nsec);
    if (!(Number.isInteger(nsec) && nsec >= 0 && nsec < 1e9) || !(Number.isSafeInteger(sec) && sec >= 0)) {
      return `header stamp ${sec} s ${nsec} ns on ${topic} is not a time (nsec must be in [0, 1e9))`;
    }
    this.#ensureStarted(sec, nsec);
    try {
      return this.#timeBase!.fromSecNsec(sec, nsec);
    } catch (err) {
      return `header stamp ${text} on ${topic} lies outside the time window of the other stamps (${err instanceof Error ? err.message : String(err)}); a stamp from another clock?`;
    }
  }

  #relative(topic: string, sec: number, nsec: number): Stamp {
    try {
      return this.#timeBase!.fromSecNsec(sec, nsec);
    } catch (err) {
      throw new Error(
        `topic ${topic}: header stamp ${secNsecText(sec, nsec)} cannot be used: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  #ensureStarted(sec: number, nsec: number): void {
    if (this.#timeBase) {
      return;
    }
    const base = TimeBase.forFirstSecNsec(sec, nsec);
    this.#timeBase = base;
    this.#stats.timeBase = base;
    this.#graph.setTimeBase(base);
    for (const ext of this.#extensions) {
      ext.start?.({ config: this.config, timeBase: base, transforms: this.transforms });
    }
  }

  #feed(slot: number, stamp: Stamp, arrival: Stamp, index: number, input: M): void {
    this.#graph.push({ slot, stamp, arrival, index, input });
  }

  #emitTuple(items: SlotItem<M>[]): void {
    const stamps = items.map((i) => i.stamp);
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of stamps) {
      if (s === s) {
        lo = Math.min(lo, s);
        hi = Math.max(hi, s);
      }
    }
    const timespan = hi >= lo ? hi - lo : 0;
    const lag = hi > -Infinity ? this.#newestStamp - hi : 0;
    const tuple: PipelineTuple<M> = {
      index: this.#stats.tuples,
      items,
      stamps,
      timespan,
      lag,
      after: this.#index,
    };
    this.#stats.addTuple(tuple);
    for (const o of this.#tupleObservers) {
      o(tuple);
    }
    for (const ext of this.#extensions) {
      ext.tuple?.(tuple);
    }
  }

  #emitDrop(
    input: M,
    slot: number,
    stamp: Stamp,
    reason: DropReason,
    detail: string | undefined,
    after: number,
  ): void {
    this.#stats.addDrop(input.topic, slot, stamp, reason, detail);
    const observers = this.#dropObservers;
    if (observers.length > 0) {
      const drop: PipelineDrop<M> = { topic: input.topic, slot, stamp, reason, detail, input, after };
      for (const o of observers) {
        o(drop);
      }
    }
  }

  /**
   * Stores a tf message's transforms. A transform whose stamp lies outside the time window is
   * skipped; a message with any such transform is one `invalid-stamp` drop (slot -1) saying how
   * many of its transforms were skipped, and its other transforms are stored.
   */
  #addTf(input: M, kind: "static" | "dynamic", index: number): void {
    const isStatic = kind === "static";
    const transforms = readTransforms(input.message);
    let skipped = 0;
    let firstReason = "";
    for (const { parent, child, stamp: header, transform } of transforms) {
      let stamp = 0;
      if (!isStatic) {
        if (typeof header === "string") {
          continue;
        }
        this.#ensureStarted(header.sec, nsecOf(header));
        try {
          stamp = this.#relative(input.topic, header.sec, nsecOf(header));
        } catch (err) {
          skipped += 1;
          firstReason ||= err instanceof Error ? err.message : String(err);
          continue;
        }
      }
      if (transform == undefined) {
        continue;
      }
      try {
        if (isStatic) {
          this.transforms.setStaticTransform(parent, child, transform);
        } else {
          this.transforms.setTransform(parent, child, stamp, transform);
        }
      } catch {
        // A malformed transform (empty frame, zero quaternion) cannot be used; lookups will say
        // which frame is missing.
      }
    }
    if (skipped > 0) {
      this.#emitDrop(input, -1, NaN, "invalid-stamp", `${skipped} of its ${transforms.length} transforms skipped: ${firstReason}`, index);
    }
  }
}
