import type { PipelineConfig } from "../config";
import type { ExtensionOutput, PipelineInput } from "../types";
import { TraceRecorder } from "./TraceRecorder";
import { diagnose, type DiagnoseOptions, type Diagnosis } from "./diagnose";
import { DropExplainer } from "./explainDrop";

/**
 * The diagnosis as a pipeline extension: records the stamp trace while the pipeline runs (a few
 * array writes per input message) and diagnoses the config once, when the summary is asked for
 * after the end of the stream. Contributes `"diagnosis"` to summary.json (DESIGN §3.3) and one
 * line (the headline) to the human summary.
 */
export class DiagnosisExtension<M extends PipelineInput = PipelineInput> extends TraceRecorder<M> {
  public override readonly name: string = "diagnosis";
  readonly #config: PipelineConfig;
  readonly #options: DiagnoseOptions;
  #diagnosis: Diagnosis | undefined;

  public constructor(config: PipelineConfig, options: DiagnoseOptions & { capacity?: number } = {}) {
    super(config, options.capacity);
    this.#config = config;
    this.#options = options;
  }

  /** The diagnosis of everything recorded so far (computed once; undefined before any stamp). */
  public get diagnosis(): Diagnosis | undefined {
    if (this.#diagnosis == undefined && this.trace != undefined) {
      this.#diagnosis = diagnose(this.trace, this.#config.policy, this.#options);
    }
    return this.#diagnosis;
  }

  public summary(): Record<string, unknown> {
    const d = this.diagnosis;
    return d == undefined ? {} : { diagnosis: d };
  }

  /**
   * `explanations.jsonl` for `analyze --out`: one line per synchronizer drop, in drops.jsonl's
   * order (its `"stage": "sync"` lines), saying what decided it (see DropExplainer). Produced
   * lazily by an instrumented re-run, so the analysis itself pays nothing for it.
   */
  public *outputs(): Generator<ExtensionOutput> {
    const trace = this.trace;
    if (trace == undefined) {
      return;
    }
    const explainer = new DropExplainer(trace, this.#config.policy);
    yield {
      file: "explanations.jsonl",
      lines: (function* () {
        for (const i of explainer.drops) {
          yield JSON.stringify(explainer.explain(i));
        }
      })(),
    };
  }

  public describe(): string[] {
    const d = this.diagnosis;
    return d == undefined ? [] : [`diagnosis: ${d.headline}`];
  }
}
