import { nsecOf, stampOf } from "../messages";
import { compareRosTimes, nsBetween, type RosTime } from "../time";

/** Latencies kept per topic for the median: exact up to this many messages, a uniform sample beyond. */
const LATENCY_SAMPLE = 65_536;

/** One message as the facts need it (a RecordedMessage or a Foxglove MessageEvent fits). */
export interface FactsInput {
  readonly topic: string;
  readonly schemaName?: string;
  readonly receiveTime: { readonly sec: number; readonly nsec: number };
  readonly message: unknown;
}

/** What one topic of a recording is like. Durations are integer nanoseconds. */
export interface TopicFacts {
  readonly topic: string;
  readonly type: string;
  /** Message encoding ("ros1", "cdr", "protobuf", "json"), when known. */
  readonly encoding: string | undefined;
  readonly messages: number;
  /** (messages − 1) / (last − first receive time), in Hz; undefined below two messages or a zero span. */
  readonly rateHz: number | undefined;
  /** Where the stamp comes from: `header.stamp`, a Foxglove `timestamp`, or "none". */
  readonly stampSource: "header.stamp" | "timestamp" | "none";
  /** Messages whose stamp is set (non-zero). */
  readonly stampsSet: number;
  /** Messages with a stamp field that is zero (ROS's "unset"). */
  readonly stampsZero: number;
  /** Receive time − stamp over the messages with a set stamp (median exact up to 65,536 messages, sampled beyond). */
  readonly latency: { readonly median: number; readonly max: number; readonly min: number } | undefined;
  /** Messages whose stamp is older than the previous message's on this topic. */
  readonly backwardStampSteps: number;
  /** Messages whose receive time equals the previous message's on this topic. */
  readonly receiveTimeTies: number;
}

/** Facts of a whole recording's messages. */
export interface MessageFacts {
  readonly messages: number;
  /** Messages whose receive time equals the message before them (any topic). */
  readonly receiveTimeTies: number;
  readonly topics: readonly TopicFacts[];
}

class TopicState {
  public type: string;
  public encoding: string | undefined;
  public messages = 0;
  public firstReceive: RosTime | undefined;
  public lastReceive: RosTime = { sec: 0, nsec: 0 };
  public lastStamp: RosTime | undefined;
  public header = 0;
  public timestamp = 0;
  public set = 0;
  public zero = 0;
  public latencies: number[] = [];
  public seenLatencies = 0;
  public maxLatency = -Infinity;
  public minLatency = Infinity;
  public backward = 0;
  public ties = 0;

  public constructor(type: string, encoding: string | undefined) {
    this.type = type;
    this.encoding = encoding;
  }
}

/**
 * Collects the facts `lockstep info` prints (and the panel's empty state shows) from messages in
 * receive-time order: per topic its type, encoding, count, rate, stamp source and whether stamps
 * are set, latency, backward stamp steps and receive-time ties. Memory is bounded (a fixed sample
 * per topic); never throws on odd messages (a message without a stamp counts as unstamped).
 *
 * ```ts
 * const facts = new TopicFactsCollector();
 * for await (const m of recording.messages()) facts.add(m, m.channel.messageEncoding);
 * facts.result();
 * ```
 */
export class TopicFactsCollector {
  readonly #topics = new Map<string, TopicState>();
  /** Topics listed even without messages (see `declare`). */
  readonly #declared = new Map<string, TopicState>();
  #messages = 0;
  #ties = 0;
  #last: RosTime | undefined;
  /** Deterministic sample choice (the same input gives the same median). */
  #seed = 0x9e3779b9;

  /** Adds one message; `encoding` is its message encoding, when known. */
  public add(m: FactsInput, encoding?: string): void {
    let state = this.#topics.get(m.topic);
    if (!state) {
      state = new TopicState(m.schemaName ?? "", encoding);
      this.#topics.set(m.topic, state);
    }
    // Copied, so that the facts keep no part of a message alive.
    const receive: RosTime = { sec: m.receiveTime.sec, nsec: m.receiveTime.nsec };
    this.#messages += 1;
    if (this.#last && compareRosTimes(this.#last, receive) === 0) {
      this.#ties += 1;
    }
    this.#last = receive;
    if (state.messages > 0 && compareRosTimes(state.lastReceive, receive) === 0) {
      state.ties += 1;
    }
    state.messages += 1;
    state.firstReceive ??= receive;
    state.lastReceive = receive;
    const stamp = stampOf(m.message);
    if (stamp == undefined) {
      return;
    }
    const header = (m.message as { header?: { stamp?: unknown } }).header;
    if (header?.stamp === stamp) {
      state.header += 1;
    } else {
      state.timestamp += 1;
    }
    const s: RosTime = { sec: stamp.sec, nsec: nsecOf(stamp) };
    if (s.sec === 0 && s.nsec === 0) {
      state.zero += 1;
      return;
    }
    state.set += 1;
    if (state.lastStamp && compareRosTimes(s, state.lastStamp) < 0) {
      state.backward += 1;
    }
    state.lastStamp = s;
    const latency = nsBetween(s, receive);
    state.maxLatency = Math.max(state.maxLatency, latency);
    state.minLatency = Math.min(state.minLatency, latency);
    state.seenLatencies += 1;
    if (state.latencies.length < LATENCY_SAMPLE) {
      state.latencies.push(latency);
    } else {
      const j = this.#random() % state.seenLatencies;
      if (j < LATENCY_SAMPLE) {
        state.latencies[j] = latency;
      }
    }
  }

  /**
   * Lists `topic` in `result()` even if no message of it is added (a topic recorded without
   * messages), after the topics that have messages; `type` and `encoding` are used unless a
   * message brings its own.
   */
  public declare(topic: string, type: string, encoding: string | undefined): void {
    if (!this.#topics.has(topic)) {
      this.#declared.set(topic, new TopicState(type, encoding));
    }
  }

  /** The facts so far, topics in order of their first message, then the declared silent ones. */
  public result(): MessageFacts {
    const topics: TopicFacts[] = [];
    const silent = [...this.#declared].filter(([topic]) => !this.#topics.has(topic));
    for (const [topic, st] of [...this.#topics, ...silent]) {
      const span = st.firstReceive ? nsBetween(st.firstReceive, st.lastReceive) : 0;
      const sorted = [...st.latencies].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      const median = sorted.length === 0 ? undefined : sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
      topics.push({
        topic,
        type: st.type,
        encoding: st.encoding,
        messages: st.messages,
        rateHz: st.messages > 1 && span > 0 ? ((st.messages - 1) * 1e9) / span : undefined,
        stampSource: st.header === 0 && st.timestamp === 0 ? "none" : st.header >= st.timestamp ? "header.stamp" : "timestamp",
        stampsSet: st.set,
        stampsZero: st.zero,
        latency: median == undefined ? undefined : { median, max: st.maxLatency, min: st.minLatency },
        backwardStampSteps: st.backward,
        receiveTimeTies: st.ties,
      });
    }
    return { messages: this.#messages, receiveTimeTies: this.#ties, topics };
  }

  #random(): number {
    // xorshift32: cheap, deterministic, good enough to pick sample slots.
    let x = this.#seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#seed = x >>> 0;
    return this.#seed;
  }
}
