import type { LockstepConfig } from "./panelConfig";

/**
 * The parts of a config that change what the pipeline computes (inputs, policy, buffer,
 * transforms, fusion) as one string: equal keys mean the results so far stay valid. Publishing,
 * namespace, view and comparison choices are not part of it, so editing them never discards
 * results.
 */
export function analysisKey(config: LockstepConfig): string {
  return JSON.stringify([config.inputs, config.policy, config.buffer, config.transforms, config.fusion]);
}

/** The config the engine runs: the analysis parts only (what `analysisKey` covers), as plain JSON. */
export function engineConfig(key: string): Record<string, unknown> {
  const [inputs, policy, buffer, transforms, fusion] = JSON.parse(key) as unknown[];
  const out: Record<string, unknown> = { inputs, policy };
  if (buffer != undefined) {
    out.buffer = buffer;
  }
  if (transforms != undefined) {
    out.transforms = transforms;
  }
  if (fusion != undefined) {
    out.fusion = fusion;
  }
  return out;
}
