import { SingleBar } from "cli-progress";
import type { Command } from "commander";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

import { FusionConfigError } from "../../pipeline";
import {
  ConfigError,
  defaultExtensions,
  describeSummary,
  Pipeline,
  summarize,
  type PipelineConfig,
  type PipelineDrop,
  type PipelineSummary,
  type PipelineTuple,
} from "../../pipeline";
import { DiagnosisExtension } from "../../pipeline/diagnosis";
import { formatName, RecordingError, SynchronizedMcapWriter, type RecordedMessage, type TupleMessage } from "../../recording";
import { FileWritable, openRecordingFile } from "../../recording/node";
import type { TimeBase } from "../../time";
import { CliError } from "../CliError";
import { configArgument } from "../configArgument";

/** Options of `runAnalyze`. */
export interface AnalyzeOptions {
  /** The .bag or .mcap file. */
  readonly file: string;
  readonly config: PipelineConfig;
  /** Output folder for tuples.jsonl, drops.jsonl, summary.json, synchronized.mcap (+ extension files). */
  readonly out?: string;
  /** Show a progress bar on stderr (default: when stderr is a terminal). */
  readonly progress?: boolean;
  /** The diagnosis extension to attach (default: a new one); `lockstep doctor` keeps its trace. */
  readonly diagnosis?: DiagnosisExtension<RecordedMessage>;
}

/** What an analysis produced. */
export interface AnalyzeResult {
  readonly summary: PipelineSummary;
  /** The human summary. */
  readonly lines: string[];
  /** Files written (with --out). */
  readonly files: string[];
  /** Set when the recording turned out corrupt or truncated: everything before it was analyzed. */
  readonly error: RecordingError | undefined;
}

/**
 * Registers `lockstep analyze <file.bag|file.mcap> --config <file.json> [--out DIR]` (DESIGN
 * §3.3): runs the whole pipeline over a recording; progress on stderr when it is a terminal, the
 * human summary on stdout, and with --out the result files. drops.jsonl holds every dropped
 * message once: the synchronizer's (`"stage": "sync"`) and the extensions' (`"stage": "fusion"`,
 * with the sensor model's name), in the order they happened. Exit 2 for config errors (naming the
 * JSON path), 1 for unreadable recordings (naming the byte offset, after printing what was read).
 */
export function registerAnalyze(program: Command): void {
  program
    .command("analyze")
    .description("run the pipeline (sync and fusion) over a .bag or .mcap recording")
    .argument("<file>", "a ROS 1 bag, an MCAP file, a rosbag2 bag folder or .db3 file")
    .requiredOption("--config <file|json>", "pipeline config (JSON file or inline JSON)")
    .option("--out <dir>", "write tuples.jsonl, drops.jsonl, summary.json and synchronized.mcap here")
    .action(async (file: string, opts: { config: string; out?: string }) => {
      const config = configArgument(opts.config);
      const result = await runAnalyze({ file, config, out: opts.out });
      process.stdout.write(`${result.lines.join("\n")}\n`);
      if (result.error) {
        throw new CliError(`${file} ${result.error.message} (the summary covers the messages before it)`, 1);
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
    return new LineFile(await open(path, "w"));
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

/**
 * Runs an analysis (the body of `lockstep analyze`, also used by `lockstep demo` and the tests).
 * Throws CliError(2) for a config that does not fit the recording (an input topic it lacks) and
 * CliError(1) when the file cannot be opened; a recording that breaks off midway is not thrown but
 * returned in `error`, after the messages before it were analyzed and the outputs written.
 */
export async function runAnalyze(options: AnalyzeOptions): Promise<AnalyzeResult> {
  const { config, out } = options;
  let pipeline: Pipeline<RecordedMessage>;
  try {
    pipeline = new Pipeline<RecordedMessage>(config);
    for (const ext of defaultExtensions<RecordedMessage>(config)) {
      pipeline.use(ext);
    }
    pipeline.use(options.diagnosis ?? new DiagnosisExtension<RecordedMessage>(config));
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new CliError(`invalid config:\n${err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`, 2);
    }
    if (err instanceof FusionConfigError) {
      // Its message starts with the field's path ("fusion.sensors.imu.topic: …").
      throw new CliError(`invalid config:\n  ${err.message}`, 2);
    }
    throw err;
  }

  let recording;
  try {
    recording = await openRecordingFile(options.file);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError(`cannot open ${options.file}: ${reason}`, 1);
  }
  const files: string[] = [];
  let error: RecordingError | undefined;
  let bar: SingleBar | undefined;
  try {
    const info = recording.info;
    if (info.indexed) {
      const present = new Set(info.channels.map((c) => c.topic));
      (config.inputs ?? []).forEach((input, i) => {
        if (!present.has(input.topic)) {
          throw new CliError(
            `/inputs/${i}/topic: "${input.topic}" is not in ${options.file}; its topics are ${[...present].map((t) => `"${t}"`).join(", ")}`,
            2,
          );
        }
      });
    }

    let tuplesFile: LineFile | undefined;
    let dropsFile: LineFile | undefined;
    let mcap: SynchronizedMcapWriter | undefined;
    let mcapFile: FileWritable | undefined;
    const pendingTuples: { index: number; messages: TupleMessage[] }[] = [];
    if (out != undefined) {
      await mkdir(out, { recursive: true });
      tuplesFile = await LineFile.create(join(out, "tuples.jsonl"));
      dropsFile = await LineFile.create(join(out, "drops.jsonl"));
      mcapFile = await FileWritable.create(join(out, "synchronized.mcap"));
      mcap = new SynchronizedMcapWriter(mcapFile, { namespace: config.publish.namespace, profile: info.profile ?? "" });
      await mcap.start();
      const tf = tuplesFile;
      const df = dropsFile;
      pipeline.onTuple((t: PipelineTuple<RecordedMessage>) => {
        const base = pipeline.timeBase;
        tf.add(
          JSON.stringify({
            stamps: t.stamps.map((s) => stampString(base, s)),
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

    const showProgress = options.progress ?? process.stderr.isTTY;
    if (showProgress) {
      bar = new SingleBar({ stream: process.stderr, format: "analyzing [{bar}] {percentage}% | {value}/{total} KiB", hideCursor: true });
      bar.start(Math.ceil(info.sizeInBytes / 1024), 0);
    }
    const progressBar = bar;
    try {
      for await (const m of recording.messages({
        topics: pipeline.topics,
        onProgress: progressBar ? (p) => { progressBar.update(Math.ceil(p.bytesRead / 1024)); } : undefined,
      })) {
        pipeline.push(m);
        if (extensionDrops.length > 0) {
          writeExtensionDrops();
        }
        if (mcap && pendingTuples.length > 0) {
          for (const t of pendingTuples) {
            await mcap.addTuple(t.index, t.messages);
          }
          pendingTuples.length = 0;
        }
        if (tuplesFile?.full === true) {
          await tuplesFile.flush();
        }
        if (dropsFile?.full === true) {
          await dropsFile.flush();
        }
      }
    } catch (err) {
      if (!(err instanceof RecordingError)) {
        throw err;
      }
      error = err;
    }
    pipeline.finish();
    writeExtensionDrops();
    bar?.stop();
    bar = undefined;

    const summary = summarize(pipeline);
    const lines = [`${options.file}: ${formatName(info)}${info.indexed ? "" : " (unindexed: read sequentially)"}`, ...describeSummary(summary, pipeline)];
    if (out != undefined) {
      await tuplesFile!.close();
      await dropsFile!.close();
      await mcap!.end();
      await mcapFile!.close();
      files.push(join(out, "tuples.jsonl"), join(out, "drops.jsonl"), join(out, "synchronized.mcap"));
      for (const ext of pipeline.extensions) {
        for (const o of ext.outputs?.() ?? []) {
          const path = join(out, o.file);
          if (o.bytes) {
            const f = await open(path, "w");
            try {
              await f.write(o.bytes);
            } finally {
              await f.close();
            }
          } else {
            const lf = await LineFile.create(path);
            for (const line of o.lines ?? []) {
              lf.add(line);
              if (lf.full) {
                await lf.flush();
              }
            }
            await lf.close();
          }
          files.push(path);
        }
      }
      const summaryPath = join(out, "summary.json");
      const sf = await open(summaryPath, "w");
      await sf.write(`${JSON.stringify(summary, undefined, 2)}\n`);
      await sf.close();
      files.push(summaryPath);
      lines.push(`wrote ${files.join(", ")}`);
    }
    return { summary, lines, files, error };
  } finally {
    bar?.stop();
    await recording.close();
  }
}
