import type { Command } from "commander";

import type { PipelineConfig } from "../../pipeline";
import { describeDiagnosis, DiagnosisExtension, DropExplainer, type Diagnosis } from "../../pipeline/diagnosis";
import { countOf } from "../../pipeline/diagnosis/format";
import type { RecordedMessage } from "../../recording";
import { CliError } from "../CliError";
import { configInFusionNode } from "../youngGeneration";
import { runAnalyze, type AnalyzeResult } from "./analyze";
import { terminalText } from "../logText";
import { addMaxChunkSizeOption, maxChunkBytesOf } from "../maxChunkSize";
import { RECORDING_ARGUMENT } from "../recordingArgument";

/** What `doctor` computed on a recording: the analysis, the diagnosis and the stamp trace it holds. */
export interface DoctorResult {
  readonly analysis: AnalyzeResult;
  /** Undefined when the recording has no message on the input topics. */
  readonly diagnosis: Diagnosis | undefined;
  /** The diagnosis extension (its `trace` is the stamps the policy saw, for explanations and replays). */
  readonly extension: DiagnosisExtension<RecordedMessage>;
}

/**
 * The analysis and diagnosis `lockstep doctor` prints: `analyze` over the recording with the
 * diagnosis extension kept, so its stamp trace stays available. Throws CliError as `runAnalyze`.
 */
export async function runDoctor(file: string, config: PipelineConfig, maxChunkBytes?: number): Promise<DoctorResult> {
  const extension = new DiagnosisExtension<RecordedMessage>(config);
  const analysis = await runAnalyze({ file, config, diagnosis: extension, maxChunkBytes });
  return { analysis, diagnosis: analysis.summary.diagnosis as Diagnosis | undefined, extension };
}

/**
 * Registers `lockstep doctor <recording> --config <file> [--json]`: runs the pipeline over the
 * recording, then says why sets are missing (causes ranked by the sets each costs, with their
 * evidence) and what to change (suggestions found by re-running the policy on the recording's
 * own stamps, each with the exact number of sets it gives). `--json` prints the same as the
 * `"diagnosis"` object of analyze's summary.json; `--explain n` says what decided the n-th drop
 * (the explanations.jsonl line of `analyze --out`). Exit codes as `analyze`.
 */
export function registerDoctor(program: Command): void {
  const command = program
    .command("doctor")
    .description("why are synchronized sets missing, what to change, and how many sets the change gives")
    .argument("<file>", RECORDING_ARGUMENT)
    .requiredOption("--config <file|json>", "pipeline config (JSON file or inline JSON)")
    .option("--fusion <fuse.yaml>", "fuse's own YAML parameter file, replacing the config's fusion section")
    .option("--json", "print the diagnosis as JSON")
    .option("--explain <n>", "explain the n-th synchronizer drop (1-based, the order of drops.jsonl's sync lines) instead");
  addMaxChunkSizeOption(command)
    .action(async (file: string, opts: { config: string; fusion?: string; json?: boolean; explain?: string; maxChunkSize?: string }) => {
      const config = await configInFusionNode(opts.config, opts.fusion);
      if (config == undefined) {
        return;
      }
      const explain = opts.explain == undefined ? undefined : Number(opts.explain);
      if (explain != undefined && !(Number.isInteger(explain) && explain >= 1)) {
        throw new CliError(`--explain: "${String(opts.explain)}" is not a drop number; give 1 for the first drop`, 2);
      }
      const { analysis: result, diagnosis, extension } = await runDoctor(file, config, maxChunkBytesOf(opts.maxChunkSize));
      if (explain != undefined) {
        const trace = extension.trace;
        const explainer = trace == undefined ? undefined : new DropExplainer(trace, config.policy);
        const event = explainer?.drops[explain - 1];
        if (trace == undefined || explainer == undefined || event == undefined) {
          const drops = explainer?.drops.length ?? 0;
          throw new CliError(
            `--explain ${explain}: there is no drop ${explain}: the synchronizer dropped ${countOf(drops, "message")}${drops === 0 ? "" : drops === 1 ? " (give 1)" : ` (give 1 to ${drops})`}`,
            2,
          );
        }
        const x = explainer.explain(event)!;
        // The stamp as the message names stamps (seconds.nanoseconds); --json keeps DESIGN's nanosecond string.
        const stamp = trace.stamp(x.event);
        const stampText = stamp === stamp ? trace.base.formatSeconds(stamp) : "(no stamp)";
        process.stdout.write(opts.json === true ? `${JSON.stringify(x)}\n` : `${terminalText(`${x.topic} ${stampText}: ${x.message}`)}\n`);
        return;
      }
      if (diagnosis == undefined) {
        throw new CliError(`${file}: no message on ${(config.inputs ?? []).map((i) => i.topic).join(", ")}; nothing to diagnose (lockstep info lists the recording's topics)`, 1);
      }
      if (opts.json === true) {
        process.stdout.write(`${JSON.stringify(diagnosis)}\n`);
      } else {
        process.stdout.write(`${terminalText(describeDiagnosis(diagnosis).join("\n"))}\n`);
      }
      if (result.error) {
        throw new CliError(`${result.error.in(file)} (the diagnosis covers the messages before it)`, 1);
      }
    });
}
