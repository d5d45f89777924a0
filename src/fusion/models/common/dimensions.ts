/**
 * fuse's dimension parameters (reference/fuse.md §3 "Dimension names"): linear variables accept
 * "x" and "y"; angular ones "yaw" (or "z"). Lists are de-duplicated and sorted. Throws RangeError
 * naming the parameter for anything else.
 */
export function linearIndices(names: readonly string[] | undefined, what: string): number[] {
  return toIndices(names, { x: 0, y: 1 }, what);
}

/** Angular dimension names ("yaw" or "z") → index list [0] or []. */
export function angularIndices(names: readonly string[] | undefined, what: string): number[] {
  return toIndices(names, { yaw: 0, z: 0 }, what);
}

/** 3D linear dimension names ("x", "y", "z") → sorted index list. */
export function linear3DIndices(names: readonly string[] | undefined, what: string): number[] {
  return toIndices(names, { x: 0, y: 1, z: 2 }, what);
}

/** 3D angular dimension names ("roll"/"x", "pitch"/"y", "yaw"/"z") → sorted index list. */
export function angular3DIndices(names: readonly string[] | undefined, what: string): number[] {
  return toIndices(names, { roll: 0, x: 0, pitch: 1, y: 1, yaw: 2, z: 2 }, what);
}

function toIndices(names: readonly string[] | undefined, map: Record<string, number>, what: string): number[] {
  const out = new Set<number>();
  for (const n of names ?? []) {
    const i = map[n.toLowerCase()];
    if (i == undefined) {
      throw new RangeError(
        `${what}: "${n}" is not a dimension here (allowed: ${Object.keys(map).join(", ")})`,
      );
    }
    out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}
