import type { CombinerPolicy } from "./CombinerPolicy";
import type { Duration } from "../../time";

/**
 * How a configuration parameter is written in JSON, checked and converted (DESIGN §3.1, §3.2).
 * The JSON schema, `parseConfig`'s conversions, the config types and the panel's editor fields
 * all follow from the kind:
 *
 * - `count`: an integer (queue sizes), `minimum`..`maximum`.
 * - `number`: a real number, `minimum`/`exclusiveMinimum`..`maximum`.
 * - `boolean`.
 * - `string`: a non-empty string (topic names).
 * - `choice`: one of `choices` (strings).
 * - `duration`: a non-negative duration, converted to integer nanoseconds.
 * - `nullableDuration`: a duration or `null` (= unlimited).
 * - `perSlotDuration` / `perSlotSignedDuration`: one duration per input, in slot order (signed:
 *   may be negative).
 * - `trigger`: a slot index or `"any"`.
 * - `group`: an object of `fields`, or (with `perSlotGroup`) an array with one such object per slot.
 */
export type ParameterKind =
  | "count"
  | "number"
  | "boolean"
  | "string"
  | "choice"
  | "duration"
  | "nullableDuration"
  | "perSlotDuration"
  | "perSlotSignedDuration"
  | "trigger"
  | "group";

/**
 * One configuration parameter: everything Lockstep says about it, in one place. Plain data (no
 * functions), so it can be searched (diagnosis), shown (panel, docs) and turned into a schema.
 */
export interface ParameterDescriptor {
  /** The JSON key. */
  readonly name: string;
  readonly kind: ParameterKind;
  /** Short label for editors ("Max queue size"). */
  readonly label: string;
  /** One sentence: what it does, for help texts, the schema and the docs. */
  readonly help: string;
  /** The upstream library's name for it (`max_queue_size`, `slop`), for users who know it. */
  readonly libraryName: string;
  /** Unit of the value: "ns" for durations, "messages", "slot", or undefined (dimensionless). */
  readonly unit?: string;
  /** True when the config must give it (no library default). */
  readonly required?: boolean;
  /**
   * The library's default, as JSON (a duration as written, `null` = unlimited), applied by the
   * policy class when the config leaves the parameter out. Undefined when required or when there
   * is no single default (then `defaultText` says what happens).
   */
  readonly default?: unknown;
  /** How the default reads when `default` cannot say it (e.g. "the library's defaults"). */
  readonly defaultText?: string;
  /** A valid value an editor fills in for a required parameter when the user picks the policy. */
  readonly initial?: unknown;
  /** Inclusive lower bound (count, number). */
  readonly minimum?: number;
  /** Exclusive lower bound (number). */
  readonly exclusiveMinimum?: number;
  /** Inclusive upper bound (count, number). */
  readonly maximum?: number;
  /** The allowed strings of a `choice`. */
  readonly choices?: readonly string[];
  /** The members of a `group`. */
  readonly fields?: readonly ParameterDescriptor[];
  /** A `group` may also be given as an array with one object per slot. */
  readonly perSlotGroup?: boolean;
}

/** The TypeScript type of a parameter's value after `parseConfig` (durations in ns). */
export type ParameterValue<P extends ParameterDescriptor> = P["kind"] extends "count" | "number"
  ? number
  : P["kind"] extends "boolean"
    ? boolean
    : P["kind"] extends "string"
      ? string
      : P["kind"] extends "choice"
        ? P["choices"] extends readonly (infer C)[]
          ? C
          : string
        : P["kind"] extends "duration"
          ? Duration
          : P["kind"] extends "nullableDuration"
            ? Duration | null
            : P["kind"] extends "perSlotDuration" | "perSlotSignedDuration"
              ? readonly Duration[]
              : P["kind"] extends "trigger"
                ? number | "any"
                : P["kind"] extends "group"
                  ? P["perSlotGroup"] extends true
                    ? | ParameterValues<NonNullable<P["fields"]>>
                      | readonly ParameterValues<NonNullable<P["fields"]>>[]
                    : ParameterValues<NonNullable<P["fields"]>>
                  : unknown;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The parsed values of a parameter list: required parameters are required keys, the others
 * optional (absent = the library's default).
 */
export type ParameterValues<L extends readonly ParameterDescriptor[]> = Simplify<
  {
    readonly [
      P in L[number] as P extends { readonly required: true } ? P["name"] : never
    ]: ParameterValue<P>;
  } & {
    readonly [
      P in L[number] as P extends { readonly required: true } ? never : P["name"]
    ]?: ParameterValue<P>;
  }
>;

/** The library a policy ports. */
export type PolicyFamily = "fkie" | "ros" | "python";

/**
 * One combiner policy: its config `type`, the library it follows and its parameters, plus the
 * factory that builds it. Every other description of a policy (the JSON schema, the config types,
 * `createPolicy`, the panel's fields, the docs table, the diagnosis search space) is derived from
 * this, so adding a parameter is one edit to one descriptor (and the class that implements it).
 */
export interface PolicyDescriptor<
  Type extends string = string,
  Params extends readonly ParameterDescriptor[] = readonly ParameterDescriptor[],
> {
  /** The config `type` ("fkie/approximate-time"). */
  readonly type: Type;
  readonly family: PolicyFamily;
  /** The upstream class ("fkie::message_filters::combiner_policies::ApproximateTime"). */
  readonly libraryName: string;
  /** One sentence for the schema, the menu and the docs. */
  readonly description: string;
  /** The reference section it follows ("fkie-message-filters.md §2.1"). */
  readonly reference: string;
  /**
   * Whether it matches headerless messages by their arrival time when allowed (Python
   * `allowHeaderless`, ROS LatestTime): such an input needs a receive time.
   */
  readonly usesArrivalTime: boolean;
  /** Parameters in display and schema order. */
  readonly parameters: Params;
  /**
   * Builds the policy for `slots` inputs. `params` holds only the parameters the config gave;
   * `zero` is the relative stamp of epoch 0 (`TimeBase.zero`), for the libraries' "stamp 0 is
   * unset" rules. Throws RangeError when the class rejects the parameters or the slot count.
   * Policies treat items as opaque, so the caller may view the result as `CombinerPolicy<T>`.
   */
  create(slots: number, params: ParameterValues<Params>, zero: number): CombinerPolicy<unknown>;
}

/** The parsed config of a policy: `{type}` plus its parameter values. */
export type PolicyConfigOf<D extends PolicyDescriptor> = Simplify<
  { readonly type: D["type"] } & ParameterValues<D["parameters"]>
>;

/**
 * How a ported library names its policies: the family, the prefix of its class names, the start
 * of every description and the reference document. With it a descriptor states only its class.
 */
export interface PolicyLibrary {
  readonly family: PolicyFamily;
  /** What precedes the class name in `libraryName` ("message_filters::sync_policies::"). */
  readonly classPrefix: string;
  /** What precedes the class name in `description` ("ROS message_filters C++"). */
  readonly title: string;
  /** The reference document ("ros-message-filters.md"). */
  readonly document: string;
}

/** One policy of a {@link PolicyLibrary}: what `libraryPolicy` completes into a descriptor. */
export interface LibraryPolicy<Params extends readonly ParameterDescriptor[]>
  extends Pick<PolicyDescriptor<string, Params>, "parameters" | "create"> {
  /** A remark shown in brackets after the class name in the description ("TimeSynchronizer"). */
  readonly note?: string;
  /** As in PolicyDescriptor; default false. */
  readonly usesArrivalTime?: boolean;
}

/**
 * Declares the descriptor of the config `type` for `library`'s class `className`, which follows
 * `section` of the library's reference document, keeping its literal types for `PolicyConfigOf`: `libraryName` is the class prefix and name, `description` reads
 * "<title> <className> (<note>)." and `reference` "<document> <section>".
 */
export function libraryPolicy<
  const Type extends string,
  const Params extends readonly ParameterDescriptor[],
>(
  library: PolicyLibrary,
  type: Type,
  className: string,
  section: string,
  policy: LibraryPolicy<Params>,
): PolicyDescriptor<Type, Params> {
  const note = policy.note == undefined ? "" : ` (${policy.note})`;
  return {
    type,
    family: library.family,
    libraryName: `${library.classPrefix}${className}`,
    description: `${library.title} ${className}${note}.`,
    reference: `${library.document} ${section}`,
    usesArrivalTime: policy.usesArrivalTime ?? false,
    parameters: policy.parameters,
    create: policy.create,
  };
}

/** A parameter's default as text for placeholders and docs ("1s", "unlimited", "" if required). */
export function defaultTextOf(parameter: ParameterDescriptor): string {
  if (parameter.required === true) {
    return "";
  }
  if (parameter.defaultText != undefined) {
    return parameter.defaultText;
  }
  const value = parameter.default;
  if (typeof value === "string") {
    return value;
  }
  // null means unlimited; undefined (no default) has no text.
  // eslint-disable-next-line @foxglove/strict-equality
  return value === null ? "unlimited" : value === undefined ? "" : JSON.stringify(value);
}
