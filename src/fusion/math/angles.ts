const TWO_PI = 2 * Math.PI;

/**
 * Wraps an angle into [-π, π) the way fuse's `wrapAngle2D` does (`a − 2π·floor((a + π) / 2π)`,
 * reference/fuse.md §6). Exactly π maps to −π. Non-finite input gives NaN.
 */
export function wrapAngle(angle: number): number {
  // Fast path: most angles are already in range, and skipping the floor keeps them bit-exact.
  if (angle >= -Math.PI && angle < Math.PI) {
    return angle;
  }
  return angle - TWO_PI * Math.floor((angle + Math.PI) / TWO_PI);
}
