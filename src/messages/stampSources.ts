import { readStamp, type StampProblem } from "./header";
import { nsecOf, type RosTime } from "../time";

/**
 * Where an input's stamp comes from. Each source is described once here; the config's
 * `inputs[].stamp` choices, its schema and the editor's menu are derived from `STAMP_SOURCES`.
 * Besides the named sources, `inputs[].stamp` may be a message path (`.timestamp`,
 * `.header.stamp`, `.meta.time`, Foxglove's message-path syntax for fields) read by
 * `stampReaderFor` below.
 */
export interface StampSourceDescriptor {
  /** The value of `inputs[].stamp` ("header"). */
  readonly name: string;
  /** Short label for editors. */
  readonly label: string;
  /** One sentence for help texts, the schema and the docs. */
  readonly help: string;
}

/** Every named stamp source, the default first. */
export const STAMP_SOURCES = [
  {
    name: "header",
    label: "Header stamp",
    help: "the message's header.stamp, or a Foxglove schema's timestamp (a message without one is dropped as no-header unless the policy allows headerless messages)",
  },
  {
    name: "receive",
    label: "Receive time",
    help: "the time the recorder received the message (bag/MCAP log time, rosbag2 timestamp)",
  },
  {
    name: "publish",
    label: "Publish time",
    help: "the MCAP publish time (messages without one are no-header)",
  },
] as const satisfies readonly StampSourceDescriptor[];

/** A stamp source name. */
export type StampSourceName = (typeof STAMP_SOURCES)[number]["name"];

/** The stamp source of an input that names none. */
export const DEFAULT_STAMP_SOURCE: StampSourceName = "header";

/** Help text for a message-path stamp source. */
export const STAMP_PATH_HELP =
  'or a message path such as ".timestamp", ".header.stamp" or ".meta.time" whose value is {sec, nsec}, {sec, nanosec}, an integer of nanoseconds or a decimal string of nanoseconds';

/** What a stamp reader needs of a message (a RecordedMessage or PipelineInput fits). */
export interface StampInput {
  readonly receiveTime: { readonly sec: number; readonly nsec: number };
  readonly publishTime?: { readonly sec: number; readonly nsec: number };
  readonly message: unknown;
}

/** Reads one input's stamp, or why there is none. Allocation-free for header/receive; never throws. */
export type StampReader = (input: StampInput) => RosTime | StampProblem;

const PATH = /^(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/**
 * Why `source` is not a stamp source (undefined when it is one): a named source or a path of
 * field names, each after a dot.
 */
export function stampSourceProblem(source: string): string | undefined {
  if (STAMP_SOURCES.some((s) => s.name === source) || PATH.test(source)) {
    return undefined;
  }
  return `"${source}" is not a stamp source: use ${STAMP_SOURCES.map((s) => `"${s.name}"`).join(", ")} ${STAMP_PATH_HELP}`;
}

const NS = 1_000_000_000;

/**
 * The stamp a value found at a message path stands for: `{sec, nsec}` / `{sec, nanosec}` as is,
 * an integer of nanoseconds (number — exact up to 2^53 ns — or bigint), or a decimal string of
 * nanoseconds (exact). Zero is "zero-stamp"; anything else "no-header".
 */
export function stampFromValue(value: unknown): RosTime | StampProblem {
  let t: RosTime | undefined;
  if (typeof value === "object" && value != undefined) {
    const o = value as { sec?: unknown; nsec?: unknown; nanosec?: unknown };
    if (typeof o.sec === "number" && (typeof o.nsec === "number" || typeof o.nanosec === "number")) {
      t = value as RosTime;
    }
  } else if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
    t = { sec: Math.floor(value / NS), nsec: value % NS };
  } else if (typeof value === "bigint" && value >= 0n) {
    t = { sec: Number(value / 1_000_000_000n), nsec: Number(value % 1_000_000_000n) };
  } else if (typeof value === "string" && /^\d+$/.test(value)) {
    t = value.length <= 9 ? { sec: 0, nsec: Number(value) } : { sec: Number(value.slice(0, -9)), nsec: Number(value.slice(-9)) };
  }
  if (t == undefined) {
    return "no-header";
  }
  return t.sec === 0 && nsecOf(t) === 0 ? "zero-stamp" : t;
}

/**
 * The reader of a stamp source (see `STAMP_SOURCES` and `STAMP_PATH_HELP`). Throws an Error
 * naming the source when it is none (check with `stampSourceProblem` first for config errors).
 */
export function stampReaderFor(source: string = DEFAULT_STAMP_SOURCE): StampReader {
  if (source === "header") {
    return (input) => readStamp(input.message);
  }
  if (source === "receive") {
    return (input) => input.receiveTime;
  }
  if (source === "publish") {
    return (input) => input.publishTime ?? "no-header";
  }
  const problem = stampSourceProblem(source);
  if (problem != undefined) {
    throw new Error(problem);
  }
  const fields = source.slice(1).split(".");
  return (input) => {
    let v: unknown = input.message;
    for (const f of fields) {
      if (typeof v !== "object" || v == undefined) {
        return "no-header";
      }
      v = (v as Record<string, unknown>)[f];
    }
    return stampFromValue(v);
  };
}

/**
 * The message paths of a (decoded) message whose values read as stamps, e.g. [".header.stamp",
 * ".timestamp"], in field order, at most `maxDepth` deep. For editors offering a stamp path
 * (the panel's `messagepath` field) from one sample message of the topic.
 */
export function stampPathsOf(message: unknown, maxDepth = 4): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v !== "object" || v == undefined || Array.isArray(v) || ArrayBuffer.isView(v) || depth > maxDepth) {
      return;
    }
    for (const [k, child] of Object.entries(v)) {
      const p = `${path}.${k}`;
      if (typeof child === "object" && child != undefined && typeof stampFromValue(child) !== "string") {
        out.push(p);
      } else if (typeof child === "object") {
        walk(child, p, depth + 1);
      } else if ((typeof child === "bigint" || typeof child === "number") && /(^|_)(time|stamp|timestamp)(_?ns)?$/i.test(k)) {
        out.push(p);
      }
    }
  };
  walk(message, "", 0);
  return out;
}
