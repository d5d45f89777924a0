import type { ParamSpec } from "./policyParams";
import { POLICY_PARAMS } from "./policyParams";

/** One validation problem: the JSON path of the offending value and what is wrong with it. */
export interface ConfigIssue {
  /** JSON path in any common spelling: "$.policy.maxAge", "/policy/maxAge", "inputs[1].topic". */
  readonly path: string;
  readonly message: string;
}

/** Where an issue is shown in the settings tree: a node path and, when known, a field key. */
export interface IssueLocation {
  readonly node: readonly string[];
  readonly field?: string;
}

/**
 * Splits a JSON path into segments. Accepts JSONPath ("$.a.b[2]", "$['a']"), JSON Pointer
 * ("/a/b/2") and bare dotted ("a.b[2]") spellings; numeric segments stay strings ("2").
 */
export function splitJsonPath(path: string): string[] {
  const p = path.trim();
  if (p.startsWith("/")) {
    return p
      .slice(1)
      .split("/")
      .filter((s) => s !== "")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  const out: string[] = [];
  const re = /\[['"]([^'"]*)['"]\]|\[(\d+)\]|([^.[\]$]+)/g;
  for (let m = re.exec(p); m != undefined; m = re.exec(p)) {
    out.push(m[1] ?? m[2] ?? m[3]!);
  }
  return out;
}

/** The settings-tree key of input slot `i`. */
export function slotKey(i: number): string {
  return `slot${i}`;
}

function perSlotParam(policyType: string, key: string): ParamSpec | undefined {
  return POLICY_PARAMS[policyType]?.find((p) => p.perSlot === true && p.key === key);
}

/**
 * Maps a config JSON path to the settings-tree node and field that edit it, so the error appears
 * on that field. Paths the editor has no field for land on the nearest node (or the root node
 * "general"), so that no error is ever hidden.
 */
export function locateIssue(path: string, policyType: string): IssueLocation {
  const seg = splitJsonPath(path);
  const [head, a, b] = seg;
  switch (head) {
    case "inputs": {
      if (a == undefined || !/^\d+$/.test(a)) {
        return { node: ["inputs"] };
      }
      return { node: ["inputs", slotKey(Number(a))], field: b ?? "topic" };
    }
    case "policy": {
      if (a == undefined) {
        return { node: ["policy"], field: "type" };
      }
      if (perSlotParam(policyType, a) && b != undefined && /^\d+$/.test(b)) {
        return { node: ["inputs", slotKey(Number(b))], field: a };
      }
      if (a === "rateConfig" && b != undefined && !/^\d+$/.test(b)) {
        return { node: ["policy"], field: `rateConfig.${b}` };
      }
      return { node: ["policy"], field: a };
    }
    case "buffer":
      return { node: ["buffer"], field: a ?? "policy" };
    case "publish":
      return { node: ["publish"], field: a ?? "enabled" };
    case "fusion":
      return locateFusionIssue(seg.slice(1));
    case "slots":
      return { node: ["inputs"] };
    case undefined:
    default:
      return { node: ["general"] };
  }
}

function locateFusionIssue(seg: readonly string[]): IssueLocation {
  const [a, b, c] = seg;
  if (a === "sensors" && b != undefined) {
    return { node: ["fusion", `sensor:${b}`], field: c };
  }
  if (a === "motionModels" && b != undefined) {
    return { node: ["fusion", `motion:${b}`], field: c };
  }
  if (a === "optimizer") {
    return b == undefined ? { node: ["fusion"], field: "optimizer" } : { node: ["fusion", "optimizer"], field: b };
  }
  return a == undefined ? { node: ["fusion"] } : { node: ["fusion"], field: a };
}

/**
 * Groups issues by node path (joined with "/") and field; issues without a field become the
 * node's error. Several issues on one spot are joined with "; ".
 */
export function groupIssues(
  issues: readonly ConfigIssue[],
  policyType: string,
): Map<string, { nodeError?: string; fields: Map<string, string> }> {
  const out = new Map<string, { nodeError?: string; fields: Map<string, string> }>();
  for (const issue of issues) {
    const loc = locateIssue(issue.path, policyType);
    const key = loc.node.join("/");
    let entry = out.get(key);
    if (!entry) {
      entry = { fields: new Map() };
      out.set(key, entry);
    }
    if (loc.field == undefined) {
      entry.nodeError = entry.nodeError == undefined ? issue.message : `${entry.nodeError}; ${issue.message}`;
    } else {
      const prev = entry.fields.get(loc.field);
      entry.fields.set(loc.field, prev == undefined ? issue.message : `${prev}; ${issue.message}`);
    }
  }
  return out;
}
