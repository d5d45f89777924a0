import type { PolicyConfigOf, PolicyDescriptor } from "./PolicyDescriptor";
import { fkieApproximateTime, fkieExactTime, fkieFifo, fkieLatch } from "./fkie/descriptors";
import { pythonApproximateTime, pythonExactTime } from "./python/descriptors";
import {
  rosApproximateEpsilonTime,
  rosApproximateTime,
  rosExactTime,
  rosLatestTime,
} from "./ros/descriptors";

/**
 * Every combiner policy Lockstep has, in the order of DESIGN §3.2's table (the menu and schema
 * order). A new policy is one descriptor file entry plus one line here.
 */
export const POLICY_DESCRIPTORS = [
  fkieApproximateTime,
  fkieExactTime,
  fkieFifo,
  fkieLatch,
  rosApproximateTime,
  rosExactTime,
  rosApproximateEpsilonTime,
  rosLatestTime,
  pythonApproximateTime,
  pythonExactTime,
] as const;

/** Any of the policy descriptors. */
export type AnyPolicyDescriptor = (typeof POLICY_DESCRIPTORS)[number];

/** A policy `type` string. */
export type PolicyType = AnyPolicyDescriptor["type"];

/** Any parsed policy config, discriminated by `type`. */
export type PolicyConfig = AnyPolicyDescriptor extends infer D
  ? D extends PolicyDescriptor
    ? PolicyConfigOf<D>
    : never
  : never;

/** Every policy `type`, in table order. */
export const POLICY_TYPES: readonly PolicyType[] = POLICY_DESCRIPTORS.map((d) => d.type);

const BY_TYPE: ReadonlyMap<string, PolicyDescriptor> = new Map(
  POLICY_DESCRIPTORS.map((d) => [d.type, d as unknown as PolicyDescriptor]),
);

/** The descriptor of a policy `type`, or undefined when there is no such policy. */
export function policyDescriptor(type: string): PolicyDescriptor | undefined {
  return BY_TYPE.get(type);
}
