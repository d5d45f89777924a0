import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { open as openFile, writeFile, type FileHandle } from "node:fs/promises";

import { FusionConfigError } from "../../pipeline";
import {
  ConfigError,
  defaultExtensions,
  describeSummary,
  tupleMemberTime,
  Pipeline,
  summarize,
  topicGuess,
  type PipelineConfig,
  type PipelineDrop,
  type PipelineSummary,
  type PipelineTuple,
} from "../../pipeline";
import { DiagnosisExtension } from "../../pipeline/diagnosis";
import { countOf, countText } from "../../pipeline/diagnosis/format";
import type { ExtensionOutput } from "../../pipeline/types";
import {
  formatName,
  RecordingError,
  SynchronizedMcapWriter,
  type RecordedMessage,
  type RecordingDamage,
  type TupleMessage,
} from "../../recording";
import { damageText, errorText } from "../../recording/RecordingError";
import { FileWritable, openRecordingFile } from "../../recording/node";
import type { TimeBase } from "../../time";
import { CliError } from "../CliError";
import { OutputFolder } from "../OutputFolder";
import { ResultChannels } from "../ResultChannels";
import { terminalText } from "../logText";
import { addMaxChunkSizeOption, maxChunkBytesOf } from "../maxChunkSize";
import { RECORDING_ARGUMENT } from "../recordingArgument";
import { configInFusionNode } from "../youngGeneration";

/** Options of `runAnalyze`. */
export interface AnalyzeOptions {
  /** The .bag or .mcap file. */
  readonly file: string;
  readonly config: PipelineConfig;
  /** Output folder for tuples.jsonl, drops.jsonl, summary.json, synchronized.mcap (+ extension files). */
  readonly out?: string;
  /** Show a progress bar on stderr (default: when stderr is a terminal). */
  readonly progress?: boolean;
  /**
   * The diagnosis extension to attach (default: a new one; `lockstep doctor` passes its own to
   * keep the trace); false runs without it (no `diagnosis` in summary.json, no explanations.jsonl).
   */
  readonly diagnosis?: DiagnosisExtension<RecordedMessage> | false;
  /** Largest uncompressed chunk accepted (bytes; default DEFAULT_MAX_CHUNK_BYTES). */
  readonly maxChunkBytes?: number;
}

/** What an analysis produced. */
export interface AnalyzeResult {
  readonly summary: PipelineSummary;
  /** The human summary. */
  readonly lines: string[];
  /** Files written (with --out). */
  readonly files: string[];
  /** Set when the recording turned out damaged: its `damages` name every skipped region; the rest was analyzed. */
  readonly error: RecordingError | undefined;
  /** Everything that went wrong (also summary.json's `errors`), each naming its topic or offset; empty when nothing did. */
  readonly errors: readonly string[];
}

/** Files `analyze --out` may write besides the extensions' own (removed when a run does not rewrite them). */
const STANDARD_OUTPUTS = ["tuples.jsonl", "drops.jsonl", "transactions.jsonl", "summary.json", "synchronized.mcap"];
/** Errors listed one by one before the rest are only counted. */
const MAX_LISTED_ERRORS = 100;

/**
 * Registers `lockstep analyze <file.bag|file.mcap> --config <file.json> [--out DIR]` (DESIGN
 * §3.3): runs the whole pipeline over a recording; progress on stderr when it is a terminal, the
 * human summary on stdout, and with --out the result files. drops.jsonl holds every dropped
 * message once: the synchronizer's (`"stage": "sync"`), the extensions' (`"stage": "fusion"`,
 * with the sensor model's name) and what damaged chunks held (`"stage": "read"`, reason
 * `unreadable-chunk`, with the chunk's byte offset and the count the index gives), in the order
 * they happened. Exit 2 for config errors (naming the JSON path), 1 when anything went wrong
 * (a damaged recording: every damaged offset is named; everything readable was analyzed).
 */
export function registerAnalyze(program: Command): void {
  const command = program
    .command("analyze")
    .description("run the pipeline (sync and fusion) over a .bag or .mcap recording")
    .argument("<file>", RECORDING_ARGUMENT)
    .requiredOption("--config <file|json>", "pipeline config (JSON file or inline JSON)")
    .option("--fusion <fuse.yaml>", "fuse's own YAML parameter file, replacing the config's fusion section")
    .option("--out <dir>", "write tuples.jsonl, drops.jsonl, summary.json and synchronized.mcap here")
    .option("--no-diagnosis", "skip the diagnosis (why sets are missing; see `lockstep doctor`): no \"diagnosis\" in summary.json, no explanations.jsonl");
  addMaxChunkSizeOption(command)
    .action(async (file: string, opts: { config: string; fusion?: string; out?: string; maxChunkSize?: string; diagnosis: boolean }) => {
      const config = await configInFusionNode(opts.config, opts.fusion);
      if (config == undefined) {
        return;
      }
      const maxChunkBytes = maxChunkBytesOf(opts.maxChunkSize);
      const result = await runAnalyze({ file, config, out: opts.out, maxChunkBytes, ...(opts.diagnosis ? {} : { diagnosis: false }) });
      process.stdout.write(`${terminalText(result.lines.join("\n"))}\n`);
      if (result.errors.length > 0) {
        throw new CliError(`${file}: the analysis covers everything readable, but:\n${result.errors.map((e) => `  ${e}`).join("\n")}`, 1);
      }
    });
}

/** Buffered appends to a text file (bounded memory: flushed when it grows). */
class LineFile {
  readonly #handle: FileHandle;
  #parts: string[] = [];
  #size = 0;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  public static async create(path: string): Promise<LineFile> {
    return new LineFile(await openFile(path, "w"));
  }

  /** Adds lines, flushing whenever the buffer grows past its bound. */
  public async addAll(lines: Iterable<string>): Promise<void> {
    for (const line of lines) {
      this.add(line);
      if (this.full) {
        await this.flush();
      }
    }
  }

  public add(line: string): void {
    this.#parts.push(line, "\n");
    this.#size += line.length + 1;
  }

  public get full(): boolean {
    return this.#size > 1 << 16;
  }

  public async flush(): Promise<void> {
    if (this.#parts.length > 0) {
      const text = this.#parts.join("");
      this.#parts = [];
      this.#size = 0;
      await this.#handle.write(text);
    }
  }

  public async close(): Promise<void> {
    await this.flush();
    await this.#handle.close();
  }
}

function receiveNs(m: RecordedMessage): string {
  return (BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec)).toString();
}

function stampString(base: TimeBase | undefined, stamp: number): string | null {
  return base && stamp === stamp ? base.format(stamp) : null;
}


/** The error list of a run: every entry up to a bound, then only a count. */
class ErrorList {
  readonly #listed: string[] = [];
  #unlisted = 0;

  public add(text: string): void {
    if (this.#listed.length < MAX_LISTED_ERRORS) {
      this.#listed.push(text);
    } else {
      this.#unlisted += 1;
    }
  }

  public get entries(): string[] {
    return this.#unlisted > 0 ? [...this.#listed, `… and ${this.#unlisted} more errors`] : [...this.#listed];
  }
}

/** Per input topic: messages that did and did not decode, and the first reason. */
interface DecodeTally {
  decoded: number;
  failed: number;
  first: string | undefined;
}

/** Topics listed at most when an input's topic is not in the recording (`lockstep info` lists all). */
const MAX_LISTED_TOPICS = 20;

/**
 * Why an input's topic is refused: not in `file`, what the user most likely meant (see
 * topicGuess), and the recording's topics, at most MAX_LISTED_TOPICS of them.
 */
function missingTopicText(topic: string, file: string, topics: readonly string[]): string {
  const guesses = topicGuess(topic, topics);
  const quoted = (t: string): string => `"${t}"`;
  const guess = guesses.length === 0 ? "" : `did you mean ${guesses.slice(0, 3).map(quoted).join(" or ")}? `;
  const listed = topics.slice(0, MAX_LISTED_TOPICS).map(quoted).join(", ");
  const more = topics.length > MAX_LISTED_TOPICS ? `, and ${topics.length - MAX_LISTED_TOPICS} more (\`lockstep info\` lists them)` : "";
  return `"${topic}" is not in ${file}; ${guess}${guess === "" ? "its" : "Its"} topics are ${listed}${more}`;
}

/** A config error as the CLI says it (exit 2, each field's path first); anything else as it is. */
function invalidConfig(err: unknown): unknown {
  if (err instanceof ConfigError) {
    return new CliError(`invalid config:\n${err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`, 2);
  }
  if (err instanceof FusionConfigError) {
    // Its message starts with the field's path ("fusion.sensors.imu.topic: …").
    return new CliError(`invalid config:\n  ${err.message}`, 2);
  }
  return err;
}

/**
 * Runs an analysis (the body of `lockstep analyze`, also used by `lockstep demo` and the tests).
 * Throws CliError(2) for a config that does not fit the recording (an input topic it lacks) and
 * CliError(1) when the file cannot be opened. Anything that goes wrong later never loses what was
 * analyzed: a damaged recording is read past (`error`), a message the pipeline cannot take is
 * reported and skipped, and every entry lands in `errors` and summary.json's `errors`. With
 * `out`, every file is written under a temporary name and renamed at the end (OutputFolder), so
 * the folder holds one whole run, summary.json included, and no file of an earlier run.
 */
export async function runAnalyze(options: AnalyzeOptions): Promise<AnalyzeResult> {
  const { config, out } = options;
  let pipeline: Pipeline<RecordedMessage>;
  try {
    pipeline = new Pipeline<RecordedMessage>(config);
    for (const ext of defaultExtensions<RecordedMessage>(config)) {
      pipeline.use(ext);
    }
    if (options.diagnosis !== false) {
      pipeline.use(options.diagnosis ?? new DiagnosisExtension<RecordedMessage>(config));
    }
  } catch (err) {
    throw invalidConfig(err);
  }

  let recording;
  try {
    recording = await openRecordingFile(options.file, { maxChunkBytes: options.maxChunkBytes });
  } catch (err) {
    throw new CliError(`cannot open ${options.file}: ${errorText(err)}`, 1);
  }
  const errors = new ErrorList();
  let error: RecordingError | undefined;
  let bar: SingleBar | undefined;
  const open: { close(): Promise<void> }[] = [];
  try {
    const info = recording.info;
    if (info.publishTimes === false) {
      (config.inputs ?? []).forEach((input, i) => {
        if (input.stamp === "publish") {
          const kind = info.format === "ros1bag" ? "a ROS 1 bag" : "a rosbag2 SQLite database";
          throw new CliError(
            `/inputs/${i}/stamp: "publish" needs publish times, which ${options.file} does not store (${kind} stores receive times only); leave "stamp" out to use the header stamp, or use "receive"`,
            2,
          );
        }
      });
    }
    if (info.indexed) {
      const present = info.channels.map((c) => c.topic);
      (config.inputs ?? []).forEach((input, i) => {
        if (!present.includes(input.topic)) {
          throw new CliError(`/inputs/${i}/topic: ${missingTopicText(input.topic, options.file, present)}`, 2);
        }
      });
      try {
        pipeline.checkChannels(info.channels);
      } catch (err) {
        throw invalidConfig(err);
      }
    }

    // --- outputs, streamed as they happen ---
    const folder = out == undefined ? undefined : await OutputFolder.open(out, STANDARD_OUTPUTS);
    let tuplesFile: LineFile | undefined;
    let dropsFile: LineFile | undefined;
    let mcap: SynchronizedMcapWriter | undefined;
    let results: ResultChannels<RecordedMessage> | undefined;
    const pendingTuples: { index: number; messages: TupleMessage[] }[] = [];
    const extensionFiles = new Map<string, LineFile>();
    if (folder) {
      tuplesFile = await LineFile.create(folder.path("tuples.jsonl"));
      dropsFile = await LineFile.create(folder.path("drops.jsonl"));
      open.push(tuplesFile, dropsFile);
      const mcapFile = await FileWritable.create(folder.path("synchronized.mcap"));
      open.push(mcapFile);
      mcap = new SynchronizedMcapWriter(mcapFile, { namespace: config.publish.namespace, profile: info.profile ?? "" });
      results = ResultChannels.attach(pipeline, mcap, config.publish.namespace);
      await mcap.start();
      const tf = tuplesFile;
      const df = dropsFile;
      const memberTime = tupleMemberTime(config.policy);
      pipeline.onTuple((t: PipelineTuple<RecordedMessage>) => {
        const base = pipeline.timeBase;
        tf.add(
          JSON.stringify({
            stamps: t.items.map((i) => stampString(base, memberTime(i))),
            topics: t.items.map((i) => i.input.topic),
            receiveTimes: t.items.map((i) => receiveNs(i.input)),
            timespan: t.timespan,
            lag: t.lag,
            after: t.after,
          }),
        );
        pendingTuples.push({ index: t.index, messages: t.items.map((i) => i.input) });
      });
      pipeline.onDrop((d: PipelineDrop<RecordedMessage>) => {
        df.add(
          JSON.stringify({
            topic: d.topic,
            stamp: stampString(pipeline.timeBase, d.stamp),
            reason: d.reason,
            stage: "sync",
            slot: d.slot,
            receiveTime: receiveNs(d.input),
            detail: d.detail,
            after: d.after,
          }),
        );
      });
    }
    /** Appends extension output lines (streamed with `drain`, the rest from `outputs` at the end). */
    const writeExtensionOutputs = async (outputs: Iterable<ExtensionOutput>): Promise<void> => {
      for (const o of outputs) {
        if (folder == undefined) {
          continue;
        }
        if (o.bytes) {
          const f = await openFile(folder.path(o.file), "w");
          try {
            await f.write(o.bytes);
          } finally {
            await f.close();
          }
          continue;
        }
        let lf = extensionFiles.get(o.file);
        if (!lf) {
          lf = await LineFile.create(folder.path(o.file));
          extensionFiles.set(o.file, lf);
          open.push(lf);
        }
        await lf.addAll(o.lines ?? []);
      }
    };
    const draining = pipeline.extensions.filter((ext) => ext.drain != undefined);

    // Extensions (fusion) report their drops through an append-only list; each new entry becomes a
    // drops.jsonl line tagged with the extension's name as its stage, after the push that caused it.
    const extensionDrops = pipeline.extensions
      .filter((ext) => ext.drops != undefined)
      .map((ext) => ({ ext, written: 0 }));
    const writeExtensionDrops = (): void => {
      if (dropsFile == undefined) {
        return;
      }
      for (const entry of extensionDrops) {
        const list = entry.ext.drops!;
        for (; entry.written < list.length; entry.written++) {
          const d = list[entry.written]!;
          dropsFile.add(
            JSON.stringify({
              topic: d.topic,
              stamp: stampString(pipeline.timeBase, d.stamp),
              reason: d.reason,
              stage: entry.ext.name,
              sensor: d.sensor,
              detail: d.detail,
            }),
          );
        }
      }
    };

    // --- damage: what a damaged chunk held becomes `unreadable-chunk` drops ---
    const unreadable: { offset: number | null; reason: string; lost: Record<string, number> | null }[] = [];
    const onDamage = (damage: RecordingDamage): void => {
      unreadable.push({ offset: damage.offset ?? null, reason: damage.reason, lost: damage.lost ? Object.fromEntries(damage.lost) : null });
      for (const [topic, count] of damage.lost ?? []) {
        const detail =
          damage.offset == undefined
            ? `${countOf(count, "message")} on ${topic} skipped: ${damage.reason}`
            : `${countOf(count, "message")} on ${topic} in the damaged chunk at ${damageText(damage)}`;
        dropsFile?.add(
          JSON.stringify({ topic, stamp: null, reason: "unreadable-chunk", stage: "read", offset: damage.offset, count, detail }),
        );
        results?.readDrop({ topic, reason: "unreadable-chunk", detail });
      }
    };

    const showProgress = options.progress ?? process.stderr.isTTY;
    if (showProgress) {
      bar = new SingleBar({ stream: process.stderr, format: "analyzing [{bar}] {percentage}% | {value}/{total} KiB", hideCursor: true });
      bar.start(Math.ceil(info.sizeInBytes / 1024), 0);
    }
    const progressBar = bar;
    const inputTopics = new Set(pipeline.inputTopics);
    const decoding = new Map<string, DecodeTally>();
    let pushed = 0;
    try {
      for await (const m of recording.messages({
        topics: pipeline.topics,
        onDamage,
        onProgress: progressBar ? (p) => { progressBar.update(Math.ceil(p.bytesRead / 1024)); } : undefined,
      })) {
        if (inputTopics.has(m.topic)) {
          let tally = decoding.get(m.topic);
          if (!tally) {
            tally = { decoded: 0, failed: 0, first: undefined };
            decoding.set(m.topic, tally);
          }
          if (m.decodeError == undefined) {
            tally.decoded += 1;
          } else {
            tally.failed += 1;
            tally.first ??= m.decodeError;
          }
        }
        try {
          pipeline.push(m);
        } catch (err) {
          errors.add(`${m.topic}: message ${pushed} (receive time ${receiveNs(m)}) could not be processed and was skipped: ${errorText(err)}`);
        }
        pushed += 1;
        if (extensionDrops.length > 0) {
          writeExtensionDrops();
        }
        if (draining.length > 0 && (pushed & 1023) === 0) {
          for (const ext of draining) {
            await writeExtensionOutputs(ext.drain!());
          }
        }
        if (mcap && pendingTuples.length > 0) {
          for (const t of pendingTuples) {
            await mcap.addTuple(t.index, t.messages);
          }
          pendingTuples.length = 0;
        }
        await results?.flush();
        if (tuplesFile?.full === true) {
          await tuplesFile.flush();
        }
        if (dropsFile?.full === true) {
          await dropsFile.flush();
        }
      }
    } catch (err) {
      if (err instanceof RecordingError) {
        error = err;
        for (const d of err.damages) {
          errors.add(damageText(d));
        }
      } else {
        errors.add(`reading stopped after ${pushed} messages: ${errorText(err)}`);
      }
    }
    for (const [topic, tally] of decoding) {
      if (tally.decoded === 0 && tally.failed > 0) {
        errors.add(`${topic}: none of its ${tally.failed} messages decode (dropped as undecodable): ${tally.first!}`);
      }
    }
    if (!recording.info.indexed) {
      // An unindexed file names its topics only as it is read: an input topic it never showed
      // is the indexed check's missing topic, known only now.
      (config.inputs ?? []).forEach((input, i) => {
        if (!decoding.has(input.topic)) {
          errors.add(
            `/inputs/${i}/topic: "${input.topic}" has no message in ${options.file} (read to its end${error == undefined ? "" : " past its damage"}, without an index to list its topics)`,
          );
        }
      });
    }
    try {
      pipeline.finish();
    } catch (err) {
      errors.add(`finishing the analysis failed (the results cover everything before): ${errorText(err)}`);
    }
    await results?.flush();
    writeExtensionDrops();
    bar?.stop();
    bar = undefined;

    const summary = summarize(pipeline);
    const lost = unreadable.reduce((n, u) => n + Object.values(u.lost ?? {}).reduce((a, b) => a + b, 0), 0);
    if (lost > 0) {
      summary.drops["unreadable-chunk"] = (summary.drops["unreadable-chunk"] ?? 0) + lost;
    }
    const errorEntries = errors.entries;
    summary.unreadable = unreadable;
    // Receive times on another clock than the header stamps (seconds; 0 = one clock).
    summary.receiveClockOffset = pipeline.receiveClockOffset ?? null;
    summary.errors = errorEntries;
    const lines = [
      `${options.file}: ${formatName(info)}${info.indexed ? "" : ` (read sequentially: ${info.indexProblem ?? "no index"})`}`,
      ...(info.notes ?? []).map((note) => `note: ${note}`),
      ...describeSummary(summary, pipeline),
    ];
    if (unreadable.length > 0) {
      // Damage that names no topic (a region the index did not cover, a message on a channel no
      // record defines, SQLite rows) has no count of what it held.
      const uncounted = unreadable.some((u) => u.lost == undefined);
      const held = !uncounted
        ? `${countOf(lost, "message")} on the analyzed topics lost, by the index's count`
        : lost > 0
          ? `at least ${countOf(lost, "message")} on the analyzed topics lost, by the index's count; for the others, how many of their messages were on these topics is not known`
          : "how many of their messages were on the analyzed topics is not known";
      lines.push(`damaged regions skipped: ${countText(unreadable.length)} (${held})`);
    }
    const files: string[] = [];
    if (folder) {
      for (const t of pendingTuples) {
        await mcap!.addTuple(t.index, t.messages);
      }
      await mcap!.end();
      for (const ext of draining) {
        await writeExtensionOutputs(ext.drain!());
      }
      for (const ext of pipeline.extensions) {
        await writeExtensionOutputs(ext.outputs?.() ?? []);
      }
      await writeFile(folder.path("summary.json"), `${JSON.stringify(summary, undefined, 2)}\n`);
      for (const f of open.splice(0)) {
        await f.close();
      }
      await folder.commit();
      files.push(...folder.files);
      lines.push(`wrote ${files.join(", ")}`);
    }
    return { summary, lines, files, error, errors: errorEntries };
  } finally {
    bar?.stop();
    for (const f of open) {
      await f.close().catch(() => undefined);
    }
    await recording.close();
  }
}
