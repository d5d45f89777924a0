import type { PipelineConfig } from "./config";
import type { PipelineExtension, PipelineInput } from "./types";
import { FusionRunner } from "../fusion/runner";

/**
 * The extensions `lockstep analyze` (and the panel's analysis) attach to a pipeline for a config.
 * This is the hook for fusion: when `config.fusion` is present, add the fusion extension here
 * (one line), and analyze writes its outputs (`transactions.jsonl`) and summary keys
 * (`transactions`, `fusion`) without further changes.
 */
export function defaultExtensions<M extends PipelineInput>(
  config: PipelineConfig,
): PipelineExtension<M>[] {
  const extensions: PipelineExtension<M>[] = [];
  if (config.fusion != undefined) {
    // The inputs let the runner reject a sensor `slot` outside them here (FusionConfigError, exit 2).
    extensions.push(new FusionRunner(config.fusion, { inputs: config.inputs }));
  }
  return extensions;
}
