import { policyDescriptor } from "../../filters/policies/descriptors";
import { formatDuration } from "../../time";
import type { PolicyConfig } from "../config";
import type { ParameterValue } from "./candidates";
import type { SearchablePolicy } from "./searchSpace";

/** A count as people read it ("1,271"). */
export function countText(n: number): string {
  return n.toLocaleString("en-US");
}

/** A count with its noun, singular for exactly one ("1 set", "1,271 sets"). */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${countText(n)} ${n === 1 ? singular : plural}`;
}

/** Items as a sentence lists them ("a", "a and b", "a, b and c"). */
export function listText(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)!}`;
}

/**
 * A duration with sensible precision: ms up to 10 s ("106 ms", "4.2 ms", "0.05 ms", "9999 ms"),
 * then seconds ("43.2 s", "250 s"), where a count of milliseconds grows too long to read.
 */
export function msText(ns: number): string {
  const ms = ns / 1e6;
  if (ms === 0) {
    return "0 ms";
  }
  const abs = Math.abs(ms);
  if (abs >= 10_000) {
    return `${(ms / 1000).toFixed(abs >= 100_000 ? 0 : 1)} s`;
  }
  const digits = abs >= 10 ? 0 : abs >= 1 ? 1 : 2;
  return `${ms.toFixed(digits)} ms`;
}

/** Two durations as a range, the unit written once when they share it ("5–17 ms", "9999 ms–12.0 s"). */
export function msRangeText(fromNs: number, toNs: number): string {
  const from = msText(fromNs);
  const to = msText(toNs);
  const unit = (text: string): string => text.slice(text.lastIndexOf(" "));
  return unit(from) === unit(to) ? `${from.slice(0, -unit(from).length)}–${to}` : `${from}–${to}`;
}

/** A rate in Hz ("100 Hz", "9.7 Hz"). */
export function hzText(hz: number): string {
  return `${hz >= 20 ? Math.round(hz) : hz.toFixed(1)} Hz`;
}

/** One parameter value as the config JSON writes it (durations as "30ms", null = unlimited). */
export function valueJson(kind: string, value: ParameterValue | undefined): unknown {
  if (value == undefined) {
    return value;
  }
  if (kind === "duration" || kind === "nullableDuration") {
    return typeof value === "number" ? formatDuration(value) : value;
  }
  if (kind === "perSlotDuration" || kind === "perSlotSignedDuration") {
    return (value as readonly number[]).map((v) => formatDuration(v));
  }
  return value;
}

/** One parameter value for a sentence ("unlimited", "30 ms", "[0 ms, 24 ms]"). */
export function valueText(kind: string, value: ParameterValue | undefined, minimum?: number): string {
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
  if (value === undefined) {
    return "the default";
  }
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
  if (value === null) {
    return "unlimited";
  }
  if (kind === "count" && value === 0 && (minimum ?? 0) === 0) {
    return "0 (unlimited)";
  }
  if (kind === "duration" || kind === "nullableDuration") {
    return formatDuration(value as number);
  }
  if (kind === "perSlotDuration" || kind === "perSlotSignedDuration") {
    return `[${(value as readonly number[]).map((v) => formatDuration(v)).join(", ")}]`;
  }
  return String(value);
}

/**
 * A policy config as JSON (DESIGN §3.2), complete: every searchable parameter written out
 * (library defaults included), durations with units (every parameter's), the other keys as the
 * config had them.
 */
export function policyJson(policy: PolicyConfig, space: SearchablePolicy | undefined, slots: number): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(policy as unknown as Record<string, unknown>) };
  const searched = new Set(space?.parameters.map((p) => p.name));
  for (const p of policyDescriptor(policy.type)?.parameters ?? []) {
    if (!searched.has(p.name) && p.name in out) {
      out[p.name] = valueJson(p.kind, out[p.name] as ParameterValue);
    }
  }
  for (const p of space?.parameters ?? []) {
    let v = out[p.name] as ParameterValue | undefined;
    // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
    if (v === undefined && p.default !== undefined) {
      v = p.kind === "perSlotDuration" ? new Array<number>(slots).fill(p.default as number) : (p.default as ParameterValue);
    }
    // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
    if (v !== undefined) {
      out[p.name] = valueJson(p.kind, v);
    }
  }
  return out;
}

/** A clock offset as it is read: seconds with one decimal from 1 s ("3600.0 s"), `msText` below ("298 ms"). */
export function offsetText(ns: number): string {
  return Math.abs(ns) >= 1e9 ? `${(ns / 1e9).toFixed(1)} s` : msText(ns);
}

/** The text with its first letter in capitals (a topic name starts with "/" and stays). */
export function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
