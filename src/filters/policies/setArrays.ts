// The arrays a policy hands to `PolicyHost.emit` for one set, built from what it holds
// (internal; not re-exported).
import type { SlotRing } from "./SlotRing";
import type { Stamp } from "../../time";

// For 2 and 3 slots each array is one literal of its values: when the host's emit is inlined and
// does not keep the array (a Combiner's sinks get the items as arguments), escape analysis
// removes the allocation, where a copy (slice, map, or a fresh array filled afterwards) is
// allocated for every set. The functions stay small (more slots go out of line, no
// destructuring) so that they are inlined into the emitting code, which escape analysis needs.

/** A fresh array of the held items, one per slot. */
export function heldItems<T>(held: readonly (T | undefined)[]): T[] {
  const n = held.length;
  return n === 2
    ? [held[0] as T, held[1] as T]
    : n === 3
      ? [held[0] as T, held[1] as T, held[2] as T]
      : (held.slice() as T[]);
}

/** A fresh array of the held stamps, one per slot. */
export function heldStamps(stamps: ArrayLike<Stamp>): Stamp[] {
  const n = stamps.length;
  return n === 2
    ? [stamps[0]!, stamps[1]!]
    : n === 3
      ? [stamps[0]!, stamps[1]!, stamps[2]!]
      : Array.from(stamps);
}

/** A fresh array of every ring's front item (the rings are not changed). */
export function frontItems<T>(rings: readonly SlotRing<T>[]): T[] {
  const n = rings.length;
  if (n === 2 || n === 3) {
    const a = rings[0]!;
    const b = rings[1]!;
    if (n === 2) {
      return [a.it[a.start] as T, b.it[b.start] as T];
    }
    const c = rings[2]!;
    return [a.it[a.start] as T, b.it[b.start] as T, c.it[c.start] as T];
  }
  return manyFrontItems(rings);
}

/** A fresh array of every ring's front stamp (the rings are not changed). */
export function frontStamps<T>(rings: readonly SlotRing<T>[]): Stamp[] {
  const n = rings.length;
  if (n === 2 || n === 3) {
    const a = rings[0]!;
    const b = rings[1]!;
    if (n === 2) {
      return [a.st[a.start]!, b.st[b.start]!];
    }
    const c = rings[2]!;
    return [a.st[a.start]!, b.st[b.start]!, c.st[c.start]!];
  }
  return rings.map((r) => r.st[r.start]!);
}

function manyFrontItems<T>(rings: readonly SlotRing<T>[]): T[] {
  return rings.map((r) => r.it[r.start] as T);
}
