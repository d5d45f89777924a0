import type { Command } from "commander";
import type { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

import {
  ConfigError,
  policyDescriptor,
  matchedTime,
  tupleMemberTime,
  SyncGraph,
  type PipelineConfig,
} from "../../pipeline";
import { parseStampJson, previewValue, StampRangeError, TimeBase, type Stamp } from "../../time";
import { CliError } from "../CliError";
import { configArgument } from "../configArgument";

/** Longest accepted input line; a longer one is an error rather than unbounded buffering. */
const MAX_LINE_BYTES = 1 << 20;
/** Output is batched into writes of about this many characters. */
const OUTPUT_BATCH = 1 << 16;

/**
 * Registers `lockstep replay --config <file.json | inline JSON>` (DESIGN §3.3): reads a JSON Lines
 * stamp trace on stdin and prints, as JSON Lines on stdout, every tuple the policy emits and every
 * message it drops, in the order they happen. Exit 2 on a config error or a malformed line (the
 * message names the line number and field).
 */
export function registerReplay(program: Command): void {
  program
    .command("replay")
    .description(
      'feed a JSON Lines stamp trace on stdin ({"slot": 0, "stamp": "<ns>", "arrival"?: "<ns>"}) ' +
        "to a combiner policy; print tuples and drops as JSON Lines",
    )
    .requiredOption(
      "--config <file|json>",
      'pipeline config: a JSON file, or inline JSON such as \'{"slots": 2, "policy": {"type": "fkie/approximate-time"}}\'',
    )
    .action(async (opts: { config: string }) => {
      const config = configArgument(opts.config);
      await replay(config, process.stdin, process.stdout);
    });
}

/**
 * Runs a replay: `input` yields the JSON Lines trace (any chunking), `output` receives the result
 * lines. Memory stays bounded: one line of input at a time, output batched and written with
 * backpressure. Output produced before an input error is written before the error is thrown.
 *
 * Throws CliError(2) for a malformed line, unknown slot, bad stamp or a policy that rejects the
 * config; CliError(1) when the policy fails.
 */
export async function replay(
  config: PipelineConfig,
  input: AsyncIterable<Buffer | string>,
  output: Writable,
): Promise<void> {
  const sink = new OutputBatcher(output);
  const run = new ReplayRun(config, sink);
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let lineNo = 0;
  try {
    for await (const chunk of input) {
      pending += typeof chunk === "string" ? chunk : decoder.write(chunk);
      let start = 0;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n", start)) {
        lineNo++;
        run.line(pending.slice(start, nl), lineNo);
        start = nl + 1;
        if (sink.full) {
          await sink.drain();
        }
        if (sink.closed) {
          return;
        }
      }
      pending = pending.slice(start);
      if (pending.length > MAX_LINE_BYTES) {
        throw new CliError(
          `replay: line ${lineNo + 1} is longer than 1 MiB; one JSON event per line`,
          2,
        );
      }
    }
    pending += decoder.end();
    if (pending.length > 0) {
      run.line(pending, lineNo + 1);
    }
  } finally {
    await sink.flush();
  }
}

/** One replayed event as it travels through the graph. */
interface ReplayItem {
  readonly slot: number;
  readonly stamp: Stamp;
  readonly arrival: Stamp;
}

/**
 * Feeds parsed events through the same graph as `Pipeline` (`SyncGraph`: buffer -> Combiner),
 * so the Combiner's own rules apply (e.g. `no-header` drops), and formats tuples and drops.
 */
class ReplayRun {
  readonly #config: PipelineConfig;
  readonly #graph: SyncGraph<ReplayItem>;
  #base = new TimeBase(0);
  #baseFixed = false;
  #event = -1;

  public constructor(config: PipelineConfig, out: OutputBatcher) {
    this.#config = config;
    // Built on base 0 first, so a config the policy class rejects fails before any input is read;
    // rebuilt once the first stamp fixes the real base (unless that base is 0 as well). Until
    // then the policy has seen nothing, so the switch drops nothing.
    const memberTime = tupleMemberTime(config.policy);
    this.#graph = configErrorsAsUsage(
      () =>
        new SyncGraph<ReplayItem>(config, this.#base, {
          tuple: (items) => {
            let line = '{"tuple":[';
            for (let i = 0; i < items.length; i++) {
              line += (i === 0 ? "" : ",") + this.#fmt(memberTime(items[i]!));
            }
            out.push(`${line}],"after":${this.#event}}\n`);
          },
          drop: (_stage, slot, stamp, item, reason) => {
            out.push(
              `{"drop":{"slot":${slot},"stamp":${this.#fmt(matchedTime({ stamp, arrival: item.arrival }))},"reason":"${reason}"},"after":${this.#event}}\n`,
            );
          },
        }),
    );
  }

  public line(text: string, lineNo: number): void {
    const trimmed = text.trim();
    if (trimmed === "") {
      return;
    }
    const ev = this.#parse(trimmed, lineNo);
    this.#event++;
    const first = ev.stamp ?? ev.arrival;
    if (!this.#baseFixed && first != undefined) {
      this.#baseFixed = true;
      this.#base = TimeBase.forFirstStamp(first);
      if (this.#base.baseSec !== 0) {
        const base = this.#base;
        configErrorsAsUsage(() => {
          this.#graph.setTimeBase(base);
        });
      }
    }
    const policy = this.#graph.policy;
    if (
      ev.stamp == undefined &&
      ev.arrival == undefined &&
      policy.acceptsHeaderless &&
      policyDescriptor(policy.type)?.usesArrivalTime === true
    ) {
      throw new CliError(
        `replay: line ${lineNo}: "stamp" is null (no header) and there is no "arrival"; ` +
          `${policy.type} uses the arrival time of headerless messages, so give "arrival": "<ns>"`,
        2,
      );
    }
    const stamp = ev.stamp == undefined ? NaN : this.#relative(ev.stamp, "stamp", lineNo);
    const arrival = ev.arrival == undefined ? stamp : this.#relative(ev.arrival, "arrival", lineNo);
    try {
      this.#graph.push({ slot: ev.slot, stamp, arrival });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new CliError(`replay: line ${lineNo}: ${policy.type} failed: ${message}`, 1);
    }
  }

  #fmt(stamp: Stamp): string {
    return Number.isNaN(stamp) ? "null" : `"${this.#base.format(stamp)}"`;
  }

  #relative(ns: bigint, field: string, lineNo: number): Stamp {
    try {
      return this.#base.fromNanoseconds(ns);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new CliError(`replay: line ${lineNo}: "${field}": ${message}`, 2);
    }
  }

  #parse(text: string, lineNo: number): { slot: number; stamp?: bigint; arrival?: bigint } {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new CliError(
        `replay: line ${lineNo}: not valid JSON (${detail}); expected {"slot": 0, "stamp": "<ns>"}`,
        2,
      );
    }
    if (typeof json !== "object" || json == undefined || Array.isArray(json)) {
      throw new CliError(
        `replay: line ${lineNo}: expected a JSON object such as {"slot": 0, "stamp": "1000000000"}, got ${clip(text)}`,
        2,
      );
    }
    const ev = json as Record<string, unknown>;
    for (const key of Object.keys(ev)) {
      if (key !== "slot" && key !== "stamp" && key !== "arrival") {
        throw new CliError(
          `replay: line ${lineNo}: unknown field ${previewValue(key, 80)}; an event has "slot", "stamp" and optionally "arrival"`,
          2,
        );
      }
    }
    const slots = this.#config.slots;
    const slot = ev.slot;
    if (typeof slot !== "number" || !Number.isInteger(slot) || slot < 0 || slot >= slots) {
      throw new CliError(
        `replay: line ${lineNo}: "slot": ${slot == undefined ? "missing" : previewValue(slot, 80)} is not a slot ` +
          `of this policy; use an integer from 0 to ${slots - 1}`,
        2,
      );
    }
    if (!("stamp" in ev)) {
      throw new CliError(
        `replay: line ${lineNo}: "stamp" is missing; give "stamp": "<ns>" (or null for a message without header)`,
        2,
      );
    }
    const result: { slot: number; stamp?: bigint; arrival?: bigint } = { slot };
    if (ev.stamp != undefined) {
      result.stamp = stampOf(ev.stamp, "stamp", lineNo);
    }
    if (ev.arrival != undefined) {
      result.arrival = stampOf(ev.arrival, "arrival", lineNo);
    }
    return result;
  }
}

/** Parses a JSON stamp (decimal string, {sec, nsec}, or an exactly representable integer). */
function stampOf(value: unknown, field: string, lineNo: number): bigint {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 0) {
      return BigInt(value);
    }
    throw new CliError(
      `replay: line ${lineNo}: "${field}": ${value} is not a whole, exactly representable number of nanoseconds; ` +
        `write stamps as decimal strings ("1700000000123456789") or {"sec", "nsec"}`,
      2,
    );
  }
  try {
    return parseStampJson(value, `"${field}"`);
  } catch (err) {
    if (err instanceof StampRangeError) {
      throw new CliError(`replay: line ${lineNo}: ${err.message}`, 2);
    }
    throw err;
  }
}

/** Runs `build`, turning a ConfigError into a usage error (exit 2) listing every issue. */
function configErrorsAsUsage<R>(build: () => R): R {
  try {
    return build();
  } catch (err) {
    if (err instanceof ConfigError) {
      const lines = err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n");
      throw new CliError(`invalid --config:\n${lines}`, 2);
    }
    throw err;
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Collects output lines and writes them in batches, waiting for "drain" when the stream is full.
 * A closed reader (EPIPE, e.g. `| head`) stops the replay quietly.
 */
class OutputBatcher {
  /** The reader went away (EPIPE): stop producing output. */
  public closed = false;
  /** The last write filled the stream's buffer: call `drain()` before producing more. */
  public full = false;
  readonly #out: Writable;
  #buf = "";
  #error: Error | undefined;

  public constructor(out: Writable) {
    this.#out = out;
    out.on("error", (err: NodeJS.ErrnoException) => {
      this.closed = true;
      if (err.code !== "EPIPE") {
        this.#error = err;
      }
    });
  }

  public push(line: string): void {
    this.#buf += line;
    if (this.#buf.length >= OUTPUT_BATCH) {
      this.#write();
    }
  }

  /** Waits for the stream to drain if a write reported it full. */
  public async drain(): Promise<void> {
    if (this.full && !this.closed) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.#out.off("drain", done);
          this.#out.off("close", done);
          this.#out.off("error", done);
          resolve();
        };
        this.#out.once("drain", done);
        this.#out.once("close", done);
        this.#out.once("error", done);
      });
    }
    this.full = false;
    if (this.#error) {
      throw new CliError(`replay: cannot write the output: ${this.#error.message}`, 1);
    }
  }

  /** Writes everything pending and waits until the stream accepted it. */
  public async flush(): Promise<void> {
    this.#write();
    await this.drain();
  }

  #write(): void {
    if (this.#buf.length > 0 && !this.closed) {
      if (!this.#out.write(this.#buf)) {
        this.full = true;
      }
    }
    this.#buf = "";
  }
}
