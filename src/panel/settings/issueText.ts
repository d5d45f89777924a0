import { locateIssue, type ConfigIssue } from "./configErrors";
import { POLICY_PARAMS } from "./policyParams";

const NODE_LABELS: Readonly<Record<string, string>> = {
  inputs: "Input topics",
  policy: "Sync policy",
  buffer: "Buffer",
  publish: "Publish",
  fusion: "Fusion",
  general: "Presets",
};

const FIELD_LABELS: Readonly<Record<string, string>> = {
  "buffer/maxQueueSize": "Max queue size",
  "buffer/policy": "Mode",
  "publish/enabled": "Publish",
  "publish/namespace": "Namespace",
  "policy/type": "Type",
};

/**
 * An issue as the panel's banner says it: where the sidebar shows it ("Sync policy → Max queue
 * size", "Input topics → Slot 1 → Topic"), then the message; the JSON path only for spots the
 * sidebar has no label for.
 */
export function issueText(issue: ConfigIssue, policyType: string): string {
  const loc = locateIssue(issue.path, policyType);
  const [head, child] = loc.node;
  const nodeLabel = head == undefined ? undefined : NODE_LABELS[head];
  if (nodeLabel == undefined || head === "fusion") {
    return `${issue.path}: ${issue.message}`;
  }
  const parts = [nodeLabel];
  if (head === "inputs" && child != undefined) {
    parts.push(`Slot ${child.replace(/^slot/, "")}`);
  }
  if (loc.field != undefined && !(head === "inputs" && child == undefined)) {
    const spec = POLICY_PARAMS[policyType]?.find((p) => p.key === loc.field);
    const field = loc.field;
    parts.push(spec?.label ?? FIELD_LABELS[`${String(head)}/${field}`] ?? (field === "topic" ? "Topic" : field));
  }
  return `${parts.join(" → ")}: ${issue.message}`;
}
