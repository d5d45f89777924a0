import { isRecord } from "./isRecord";
import type { LockstepConfig } from "./panelConfig";
import { FuseYamlError, fusionFromFuseYaml } from "../../pipeline";

/** What the last fuse YAML import did, for the Fusion node of the settings tree. */
export interface FuseYamlNotice {
  /** The file name the user chose (if known). */
  readonly file?: string;
  /** Why nothing was imported: each offending key path with its value. */
  readonly error?: string;
  /** Keys of the file Lockstep ignores, each "key.path: what". */
  readonly warnings: readonly string[];
}

/**
 * The config with its fusion section filled from a fuse YAML parameter file (`fusionFromFuseYaml`,
 * the CLI's `--fusion`), keeping the section's JSON-only `uuidRecipe`; the other sections are
 * untouched. A file that cannot be used leaves the config as it is and says why in the notice.
 * Pure; never throws.
 */
export function importFuseYaml(config: LockstepConfig, text: string, file?: string): { config: LockstepConfig; notice: FuseYamlNotice } {
  try {
    const imported = fusionFromFuseYaml(text);
    const fusion: Record<string, unknown> = JSON.parse(JSON.stringify(imported.fusion)) as Record<string, unknown>;
    if (isRecord(config.fusion) && config.fusion.uuidRecipe != undefined) {
      fusion.uuidRecipe = config.fusion.uuidRecipe;
    }
    return {
      config: { ...config, fusion },
      notice: { file, warnings: imported.warnings.map((w) => `${w.path}: ${w.message}`) },
    };
  } catch (err) {
    const error = err instanceof FuseYamlError ? err.message : err instanceof Error ? err.message : String(err);
    return { config, notice: { file, error, warnings: [] } };
  }
}
