import type { ConfigIssue } from "./configErrors";
import type { LockstepConfig } from "./panelConfig";
import { POLICY_PARAMS } from "./policyParams";

/** A number with no unit, as typed in a duration's text field ("5", "2.5"). */
const UNITLESS = /^[-+]?\d+(\.\d+)?$/;

/**
 * Problems the pipeline's parser does not report but a panel user must see, each on the field
 * that holds the value:
 * - fewer than two inputs (every policy pairs two or more topics; the parser accepts one, and the
 *   engine then fails with a policy's internal message), naming the chosen policy;
 * - a duration typed as a bare number other than 0: the parser reads it as nanoseconds, which is
 *   never what "5" in a text field means, so it is refused with the hint to add a unit. (A JSON
 *   number, as the CLI's config files hold, stays integer nanoseconds.)
 */
export function panelIssues(config: LockstepConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const type = config.policy.type;
  if (config.inputs.length < 2) {
    issues.push({
      path: "/inputs",
      message: `Add at least two input topics (a synchronizer pairs messages of two or more topics${type === "" ? "" : `; ${type} too`})`,
    });
  }
  for (const spec of POLICY_PARAMS[type] ?? []) {
    if (spec.kind !== "duration") {
      continue;
    }
    const value = config.policy[spec.key];
    const values = spec.perSlot === true && Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (typeof v === "string" && UNITLESS.test(v.trim()) && Number(v) !== 0) {
        const n = v.trim();
        issues.push({
          path: spec.perSlot === true ? `/policy/${spec.key}/${i}` : `/policy/${spec.key.replace(/\./g, "/")}`,
          message: `${n} has no unit: write e.g. "${n}ms" or "${n} s"`,
        });
      }
    });
  }
  return issues;
}

/** Whether a parser issue says the same as a panel issue in schema words (an empty `inputs`). */
export function supersededByPanelIssue(issue: ConfigIssue, config: LockstepConfig): boolean {
  return config.inputs.length < 2 && /^[/$.]*inputs$/.test(issue.path.trim());
}
