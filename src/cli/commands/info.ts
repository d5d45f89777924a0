import type { Command } from "commander";

import { countOf } from "../../pipeline/diagnosis/format";
import { recordingFacts, RecordingError, type RecordingFacts, type TopicFacts } from "../../recording";
import { openRecordingFile } from "../../recording/node";
import { CliError } from "../CliError";
import { terminalText } from "../logText";
import { addMaxChunkSizeOption, maxChunkBytesOf } from "../maxChunkSize";
import { RECORDING_ARGUMENT } from "../recordingArgument";

function ms(ns: number): string {
  return `${(ns / 1e6).toFixed(2)} ms`;
}

function stampText(t: TopicFacts): string {
  if (t.stampSource === "none") {
    return "none (headerless: arrival time only)";
  }
  const unset = t.messages - t.stampsSet;
  return unset === 0 ? `${t.stampSource}, set on all` : `${t.stampSource}, set on ${t.stampsSet} of ${t.messages} (${t.stampsZero} zero)`;
}

/** The human form of `lockstep info`: a header, then one block per topic. */
export function describeFacts(file: string, facts: RecordingFacts): string[] {
  const lines = [
    `${file}: ${facts.formatName}${facts.indexed ? "" : ` (unindexed: read sequentially${facts.indexProblem == undefined ? "" : `, because ${facts.indexProblem}`})`}, ${facts.sizeInBytes} bytes`,
    `messages: ${facts.messages}, receive-time ties (same receive time as the message before, any topic): ${facts.receiveTimeTies}`,
  ];
  if (facts.startTime != undefined && facts.endTime != undefined) {
    const span = Number(BigInt(facts.endTime) - BigInt(facts.startTime)) / 1e9;
    lines.push(`receive times: ${facts.startTime} … ${facts.endTime} (${span.toFixed(3)} s)`);
  }
  for (const note of facts.notes) {
    lines.push(`note: ${note}`);
  }
  if (facts.damages.length > 0) {
    lines.push(`damaged regions read past: ${facts.damages.length} (the facts below are those of everything readable around them)`);
  }
  for (const t of facts.topics) {
    lines.push(t.topic);
    const type = `  type ${t.type || "(none)"}, encoding ${t.encoding ?? "?"}`;
    if (t.messages === 0) {
      const why = facts.damages.length > 0 ? "none readable: the damaged regions may have held them" : "the recording lists the topic but holds no message of it";
      lines.push(`${type}, 0 messages (${why})`);
      continue;
    }
    lines.push(`${type}, ${countOf(t.messages, "message")}${t.rateHz == undefined ? "" : `, ${t.rateHz.toFixed(2)} Hz`}`);
    const reason = facts.unreadableTopics[t.topic];
    if (reason != undefined) {
      lines.push(`  not decodable: ${reason}`);
      continue;
    }
    lines.push(`  stamp: ${stampText(t)}`);
    if (t.latency) {
      lines.push(`  latency (receive − stamp): median ${ms(t.latency.median)}, max ${ms(t.latency.max)}, min ${ms(t.latency.min)}`);
    }
    lines.push(`  backward stamp steps: ${t.backwardStampSteps}, receive-time ties on this topic: ${t.receiveTimeTies}`);
  }
  return lines;
}

/**
 * Registers `lockstep info <recording> [--json]`: what a recording holds and how its time
 * behaves, per topic (type, encoding, count, rate, stamp source and whether set, latency,
 * backward stamp steps, receive-time ties). `--json` prints the `RecordingFacts` object. Exit 1
 * when the recording cannot be opened or breaks off (after printing nothing partial).
 */
export function registerInfo(program: Command): void {
  const command = program
    .command("info")
    .description("show a recording's topics, types, rates, stamps, latency and ordering facts")
    .argument("<recording>", RECORDING_ARGUMENT)
    .option("--json", "print the facts as one JSON object");
  addMaxChunkSizeOption(command)
    .action(async (file: string, opts: { json?: boolean; maxChunkSize?: string }) => {
      const maxChunkBytes = maxChunkBytesOf(opts.maxChunkSize);
      let recording;
      try {
        recording = await openRecordingFile(file, { maxChunkBytes });
      } catch (err) {
        throw new CliError(`cannot open ${file}: ${err instanceof Error ? err.message : String(err)}`, 1);
      }
      let facts: RecordingFacts;
      try {
        facts = await recordingFacts(recording);
      } catch (err) {
        if (err instanceof RecordingError) {
          throw new CliError(err.in(file), 1);
        }
        throw err;
      } finally {
        await recording.close();
      }
      process.stdout.write(opts.json === true ? `${JSON.stringify({ file, ...facts })}\n` : `${terminalText(describeFacts(file, facts).join("\n"))}\n`);
      if (facts.damages.length > 0) {
        // The facts above are those of everything readable; the damage still fails the command.
        throw new CliError(RecordingError.afterDamage(facts.damages.map((d) => ({ ...d, lost: undefined }))).in(file), 1);
      }
    });
}
