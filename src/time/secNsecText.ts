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
 * `secNsecText` of a stamp in JSON's form, a decimal string of nanoseconds (DESIGN §3.1):
 * "1432235893331706030" → "1432235893.331706030". Anything else comes back as it was.
 */
export function nanosecondsText(ns: string): string {
  if (!/^\d{1,30}$/.test(ns)) {
    return ns;
  }
  const value = BigInt(ns);
  return secNsecText(Number(value / 1_000_000_000n), Number(value % 1_000_000_000n));
}
