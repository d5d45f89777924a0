/**
 * A ROS time as people read it: whole seconds, a point and the nanoseconds in nine digits
 * ("1432235497.988949113"), as `ros2 topic echo` and the apps' stamp fields show one. The digits
 * are written as given, so a damaged time (nsec ≥ 1e9) shows as it was read rather than carried.
 * JSON writes stamps as decimal strings of nanoseconds instead (`TimeBase.format`, DESIGN §3.1).
 */
export function secNsecText(sec: number, nsec: number): string {
  return `${sec}.${String(nsec).padStart(9, "0")}`;
}

/**
 * `secNsecText` of absolute nanoseconds, a `bigint` (signed: "-0.000000005" before absolute 0) or
 * a stamp in JSON's form, a decimal string (DESIGN §3.1): "1432235893331706030" →
 * "1432235893.331706030". A string that is not one comes back as it was.
 */
export function nanosecondsText(ns: string | bigint): string {
  if (typeof ns === "string") {
    return /^\d{1,30}$/.test(ns) ? nanosecondsText(BigInt(ns)) : ns;
  }
  const abs = ns < 0n ? -ns : ns;
  const text = secNsecText(Number(abs / 1_000_000_000n), Number(abs % 1_000_000_000n));
  return ns < 0n ? `-${text}` : text;
}
