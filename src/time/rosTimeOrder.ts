import { nsecOf, type RosTime } from "./stamps";

/**
 * Orders two ROS times exactly: negative when `a` is earlier, 0 when they are the same time,
 * positive when `a` is later. Compares seconds, then nanoseconds, never absolute nanoseconds as a
 * number: an epoch time in nanoseconds (about 1.7e18) lies beyond a double's exact integers (2^53,
 * about 9.0e15), where `sec * 1e9 + nsec` rounds to 256 ns and makes times up to 128 ns apart
 * equal.
 */
export function compareRosTimes(a: RosTime, b: RosTime): number {
  return a.sec !== b.sec ? a.sec - b.sec : nsecOf(a) - nsecOf(b);
}

/**
 * Nanoseconds from `earlier` to `later` (negative when `later` is the earlier one), exact while
 * the distance is under 2^53 ns (104 days): seconds and nanoseconds are subtracted apart before
 * they meet, so neither time's size costs precision.
 */
export function nsBetween(earlier: RosTime, later: RosTime): number {
  return (later.sec - earlier.sec) * 1e9 + (nsecOf(later) - nsecOf(earlier));
}
