/**
 * What the settings editor shows for each policy type (DESIGN §3.2): one entry per parameter, in
 * display order, derived from the policy descriptors (a parameter is declared once, in its
 * policy's descriptor). The editor never decides validity: it stores what the user typed and
 * shows the pipeline's own validation error on the field (see configErrors.ts).
 */

import { defaultTextOf, POLICY_DESCRIPTORS, type ParameterDescriptor } from "../../pipeline";

/** How a parameter is edited. */
export type ParamKind =
  /** Non-negative integer (queue sizes). */
  | "int"
  /** Real number (penalties, EMA factors). */
  | "float"
  /** Duration string with unit ("33ms") or integer ns; "unlimited" stores null when nullable. */
  | "duration"
  | "boolean"
  /** fkie Latch trigger: a slot index or "any". */
  | "trigger";

/** One policy parameter as the editor shows it. */
export interface ParamSpec {
  /** JSON key under `policy` (dotted for nested objects, e.g. "rateConfig.alphaRate"). */
  readonly key: string;
  readonly label: string;
  readonly kind: ParamKind;
  /** One value per input slot (an array in the JSON), edited in each slot's node. */
  readonly perSlot?: boolean;
  /** `null` (shown as "unlimited") is allowed. */
  readonly nullable?: boolean;
  /** The library's default, shown as the placeholder ("" when required). */
  readonly defaultText: string;
  readonly help: string;
}

/** The editor fields of one descriptor parameter (a group gives one field per member). */
function specsOf(p: ParameterDescriptor): ParamSpec[] {
  const base = { key: p.name, label: p.label, defaultText: defaultTextOf(p), help: p.help };
  switch (p.kind) {
    case "count":
      return [{ ...base, kind: "int" }];
    case "number":
      return [{ ...base, kind: "float" }];
    case "boolean":
      return [{ ...base, kind: "boolean" }];
    case "trigger":
      return [{ ...base, kind: "trigger" }];
    case "duration":
      return [{ ...base, kind: "duration" }];
    case "nullableDuration":
      return [{ ...base, kind: "duration", nullable: true }];
    case "perSlotDuration":
    case "perSlotSignedDuration":
      return [{ ...base, kind: "duration", perSlot: true }];
    case "group":
      return (p.fields ?? []).flatMap((f) =>
        specsOf(f).map((spec) => ({ ...spec, key: `${p.name}.${spec.key}` })),
      );
    case "string":
    case "choice":
      return [];
  }
}

/** Parameters per policy type, in display order. */
export const POLICY_PARAMS: Readonly<Record<string, readonly ParamSpec[]>> = Object.fromEntries(
  POLICY_DESCRIPTORS.map((d) => [d.type, d.parameters.flatMap((p) => specsOf(p))]),
);

/** Every policy type the editor offers, in menu order. */
export const POLICY_TYPES: readonly string[] = POLICY_DESCRIPTORS.map((d) => d.type);

/** Default parameters when the user switches to a policy type (required ones filled in). */
export function defaultPolicy(type: string): Record<string, unknown> {
  const out: Record<string, unknown> = { type };
  const parameters: readonly ParameterDescriptor[] =
    POLICY_DESCRIPTORS.find((d) => d.type === type)?.parameters ?? [];
  for (const p of parameters) {
    if (p.required === true && p.initial != undefined) {
      out[p.name] = p.initial;
    }
  }
  return out;
}
