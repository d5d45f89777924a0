/**
 * The dimension names fuse's `*_dimensions` parameters accept for one family of variables
 * (reference/fuse.md §3 "Dimension names"), each mapped to its component index.
 */
export interface AxisNames {
  readonly linear: Readonly<Record<string, number>>;
  readonly angular: Readonly<Record<string, number>>;
}

/** 2D: linear "x", "y"; angular "yaw" (or "z"). */
export const PLANAR_AXES: AxisNames = { linear: { x: 0, y: 1 }, angular: { yaw: 0, z: 0 } };

/** 3D: linear "x", "y", "z"; angular "roll"/"x", "pitch"/"y", "yaw"/"z". */
export const SPATIAL_AXES: AxisNames = {
  linear: { x: 0, y: 1, z: 2 },
  angular: { roll: 0, x: 0, pitch: 1, y: 1, yaw: 2, z: 2 },
};

/**
 * A sensor's `*Dimensions` options as index lists, keyed by option name: each option is read with
 * the names of its kind (`kinds[name]`), de-duplicated and sorted; an absent option selects
 * nothing. Options are read in `kinds`' order; throws RangeError naming the first option that
 * holds a name its kind does not accept.
 */
export function dimensionIndices<K extends string>(
  options: Readonly<Partial<Record<NoInfer<K>, readonly string[]>>>,
  axes: AxisNames,
  kinds: Readonly<Record<K, keyof AxisNames>>,
): Record<K, number[]> {
  const out = {} as Record<K, number[]>;
  for (const name of Object.keys(kinds) as K[]) {
    out[name] = toIndices(options[name], axes[kinds[name]], name);
  }
  return out;
}

function toIndices(names: readonly string[] | undefined, map: Readonly<Record<string, number>>, what: string): number[] {
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
