import type { PolicyConfig } from "./config";
import type { Stamp } from "../time";

/**
 * The time a policy matched a tuple member (or a drop) by, as outputs print it (DESIGN §3.3):
 * its stamp, or, for a headerless message (stamp NaN), the arrival time it was matched with, so
 * every printed member names its message.
 */
export function matchedTime(item: { readonly stamp: Stamp; readonly arrival: Stamp }): Stamp {
  return item.stamp === item.stamp ? item.stamp : item.arrival;
}

/** A tuple member's arrival time: what a policy that matches every message by arrival matched it by. */
function arrivalTime(item: { readonly stamp: Stamp; readonly arrival: Stamp }): Stamp {
  return item.arrival;
}

/**
 * How tuple members print under `policy` (DESIGN §3.3): `matchedTime`, or the arrival time for
 * every member when the policy matches by arrival time (Python ApproximateTime's
 * `syncArrivalTime`).
 */
export function tupleMemberTime(policy: PolicyConfig): (item: { readonly stamp: Stamp; readonly arrival: Stamp }) => Stamp {
  return policy.type === "python/approximate-time" && policy.syncArrivalTime === true ? arrivalTime : matchedTime;
}
