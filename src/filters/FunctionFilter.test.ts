import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import type { Filter } from "./Filter";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserFilter } from "./UserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

// fkie's two upstream tests, one row each: 42 goes through (as `out`), -1 is a `discarded` drop.
const UPSTREAM: readonly {
  name: string;
  make: () => Filter<[number], [number]>;
  out: number;
  detail: string;
}[] = [
  {
    name: "SimpleUserFilter (test_simple_user_filter): 42 passes, -1 is dropped",
    make: () => new SimpleUserFilter<[number]>().setProcessingFunction((i) => i === 42),
    out: 42,
    detail: "the filter function returned false",
  },
  {
    name: "UserFilter (test_user_filter): int -> double, 42 gives 3.14, -1 emits nothing",
    make: () =>
      new UserFilter<[number], [number]>().setProcessingFunction((i, emit) => {
        if (i === 42) {
          emit(3.14);
        }
      }),
    out: 3.14,
    detail: "the filter function emitted nothing for this input",
  },
];

describe("the user-function filters", () => {
  it.each(UPSTREAM)("upstream $name", ({ make, out, detail }) => {
    const src = new UserSource<[number]>();
    const flt = make();
    const got: number[] = [];
    const snk = new SimpleUserFilter<[number]>((d) => {
      got.push(d);
      if (d !== out) {
        throw new Error(`${d} != ${out}`);
      }
      return true;
    });
    chain(src, flt, snk);
    const drops: DropEvent<number>[] = [];
    flt.onDrop((d) => drops.push(d));
    src.push(42);
    src.push(-1);
    expect(got).toEqual([out]);
    expect(drops).toEqual([{ slot: 0, stamp: NaN, reason: "discarded", item: -1, detail }]);
  });
});
