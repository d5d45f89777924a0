import type { Stamp } from "../time";

/**
 * The time a policy matched a tuple member (or a drop) by, as outputs print it (DESIGN §3.3):
 * its stamp, or, for a headerless message (stamp NaN), the arrival time it was matched with, so
 * every printed member names its message.
 */
export function matchedTime(item: { readonly stamp: Stamp; readonly arrival: Stamp }): Stamp {
  return item.stamp === item.stamp ? item.stamp : item.arrival;
}
