const TWO_PI = 2 * Math.PI;

/**
 * Wraps an angle the way fuse's `wrapAngle2D` does (`a − 2π·floor((a + π) / 2π)`, reference/fuse.md
 * §6), bit for bit for every input: the result lies in [-π, π) except for the double just below
 * π, which fuse's formula takes one ulp below −π. Exactly π maps to −π; non-finite input gives
 * NaN. The one definition of the wrap in Lockstep: the costs, the manifold, the sensor models and
 * the panel all use it.
 */
export function wrapAngle(angle: number): number {
  // Most angles are already wrapped; for those the floor is 0 and the formula returns the angle
  // unchanged, so it is skipped. The test is on a + π, as the formula's, not on a: the double just
  // below π has a + π rounding to 2π, where the formula does subtract a turn.
  const shifted = angle + Math.PI;
  if (shifted >= 0 && shifted < TWO_PI) {
    return angle;
  }
  return angle - TWO_PI * Math.floor(shifted / TWO_PI);
}
