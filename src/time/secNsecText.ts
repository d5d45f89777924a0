/**
 * A ROS time as people read it: whole seconds, a point and the nanoseconds in nine digits
 * ("1432235497.988949113"), as `ros2 topic echo` and the apps' stamp fields show one. The digits
 * are written as given, so a damaged time (nsec ≥ 1e9) shows as it was read rather than carried.
 * JSON writes stamps as decimal strings of nanoseconds instead (`TimeBase.format`, DESIGN §3.1).
 */
export function secNsecText(sec: number, nsec: number): string {
  return `${sec}.${String(nsec).padStart(9, "0")}`;
}
