// The arrays a ROS policy hands to `PolicyHost.emit` (internal; not re-exported).
import type { Stamp } from "../../../time";

// `new Array(n)` with a variable n goes through the generic Array constructor; small literals are
// allocated inline (and, for the stamps, stay packed doubles), which matters once per emitted set.

/** A fresh array of `n` holes-free slots (undefined), for one emitted set's items. */
export function newItemArray<T>(n: number): T[] {
  switch (n) {
    case 2:
      return [undefined, undefined] as T[];
    case 3:
      return [undefined, undefined, undefined] as T[];
    case 4:
      return [undefined, undefined, undefined, undefined] as T[];
    default:
      return new Array<T>(n);
  }
}

/** A fresh array of `n` doubles (to be overwritten), for one emitted set's stamps. */
export function newStampArray(n: number): Stamp[] {
  switch (n) {
    case 2:
      return [0.5, 0.5];
    case 3:
      return [0.5, 0.5, 0.5];
    case 4:
      return [0.5, 0.5, 0.5, 0.5];
    default:
      return new Array<Stamp>(n).fill(0.5);
  }
}
