import { RecordingError, type RecordingDamage } from "./RecordingError";
import { TopicFactsCollector, type MessageFacts } from "./TopicFacts";
import { formatName } from "./formatName";
import type { ReadProgress, RecordTime, Recording } from "./types";

/** Everything `lockstep info` reports about a recording. */
export interface RecordingFacts extends MessageFacts {
  /** "ros1bag", "mcap" or "rosbag2". */
  readonly format: string;
  /** In words, e.g. "rosbag2 (ros2)". */
  readonly formatName: string;
  readonly profile: string | undefined;
  readonly indexed: boolean;
  /** Why the file was read sequentially (its index is missing or damaged), when it was. */
  readonly indexProblem: string | undefined;
  readonly sizeInBytes: number;
  /** Receive time of the first and last message (ns, decimal strings); undefined when empty. */
  readonly startTime: string | undefined;
  readonly endTime: string | undefined;
  /** Topics that cannot be decoded, with the reason (their messages are counted, not analyzed). */
  readonly unreadableTopics: Readonly<Record<string, string>>;
  /** How the recording was read, where a user should know it (`RecordingInfo.notes`); often empty. */
  readonly notes: readonly string[];
  /**
   * The damaged regions the read went past, in file order (empty for an intact file): the facts
   * are those of everything readable around them. `offset` is undefined (absent in JSON) for
   * damage without a byte offset (SQLite rows), which comes first.
   */
  readonly damages: readonly { readonly offset: number | undefined; readonly reason: string }[];
}

/**
 * Reads a whole recording once and returns its facts (per topic: type, encoding, count, rate,
 * stamp source and whether set, latency, backward stamp steps, receive-time ties). Runs wherever
 * the recording does (Node, browser, Worker). Damage the reader went past is listed in
 * `damages`; any other read error is thrown.
 */
export async function recordingFacts(recording: Recording, onProgress?: (p: ReadProgress) => void): Promise<RecordingFacts> {
  const collector = new TopicFactsCollector();
  // A topic the recording declares but holds no message of (rosbag2 records /parameter_events
  // that way) is listed too: a config naming it is then explained, not "not in the recording".
  for (const c of recording.info.channels) {
    collector.declare(c.topic, c.schemaName, c.messageEncoding);
  }
  const unreadable = recording.info.unreadableTopics ?? new Map<string, string>();
  const readable = recording.info.channels.map((c) => c.topic).filter((t) => !unreadable.has(t));
  let first: RecordTime | undefined;
  let last: RecordTime | undefined;
  const less = (a: RecordTime, b: RecordTime): boolean => a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);
  const ns = (t: RecordTime | undefined): string | undefined => (t ? (BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec)).toString() : undefined);
  // Unreadable topics are counted from raw data; the others are decoded for their stamps.
  const damages: { offset: number | undefined; reason: string }[] = [];
  const passes: { topics: readonly string[] | undefined; decode: boolean }[] =
    unreadable.size === 0 ? [{ topics: undefined, decode: true }] : [{ topics: readable, decode: true }, { topics: [...unreadable.keys()], decode: false }];
  for (const pass of passes) {
    if (pass.topics?.length === 0) {
      continue;
    }
    let skipped: readonly RecordingDamage[] = [];
    try {
      for await (const m of recording.messages({ topics: pass.topics, decode: pass.decode, onProgress })) {
        collector.add(m, m.channel.messageEncoding);
        const t = m.receiveTime;
        if (!first || less(t, first)) {
          first = t;
        }
        if (!last || less(last, t)) {
          last = t;
        }
      }
    } catch (err) {
      if (!(err instanceof RecordingError && err.readPast)) {
        throw err;
      }
      skipped = err.damages;
    }
    for (const d of skipped) {
      // Both passes may meet the same damage: one per offset, and damages without an offset
      // (SQLite rows) are told apart by their reason.
      if (!damages.some((x) => x.offset === d.offset && (d.offset != undefined || x.reason === d.reason))) {
        damages.push({ offset: d.offset, reason: d.reason });
      }
    }
  }
  const info = recording.info;
  return {
    ...collector.result(),
    format: info.format,
    formatName: formatName(info),
    profile: info.profile,
    indexed: info.indexed,
    indexProblem: info.indexed ? undefined : info.indexProblem,
    sizeInBytes: info.sizeInBytes,
    startTime: ns(first),
    endTime: ns(last),
    unreadableTopics: Object.fromEntries(unreadable),
    notes: info.notes ?? [],
    damages: damages.sort((a, b) => (a.offset ?? -1) - (b.offset ?? -1)),
  };
}
