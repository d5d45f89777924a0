import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserFilter } from "./UserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

describe("UserFilter", () => {
  it("upstream test_user_filter: int -> double, 42 gives 3.14, -1 emits nothing (discarded)", () => {
    const src = new UserSource<[number]>();
    const flt = new UserFilter<[number], [number]>();
    const snk = new SimpleUserFilter<[number]>();
    chain(src, flt, snk);
    flt.setProcessingFunction((i, emit) => {
      if (i === 42) {
        emit(3.14);
      }
    });
    const got: number[] = [];
    snk.setProcessingFunction((d) => {
      got.push(d);
      if (d !== 3.14) {
        throw new Error("d != 3.14");
      }
      return true;
    });
    const drops: DropEvent<number>[] = [];
    flt.onDrop((d) => drops.push(d));
    src.push(42);
    src.push(-1);
    expect(got).toEqual([3.14]);
    expect(drops).toEqual([
      {
        slot: 0,
        stamp: NaN,
        reason: "discarded",
        item: -1,
        detail: "the filter function emitted nothing for this input",
      },
    ]);
  });

  it("emits several outputs per input, in call order, with a different arity", () => {
    const src = new UserSource<[string]>();
    const split = new UserFilter<[string], [string, number]>((text, emit) => {
      text.split(",").forEach((part, i) => {
        emit(part, i);
      });
    });
    const got: [string, number][] = [];
    const snk = new SimpleUserFilter<[string, number]>((s, i) => {
      got.push([s, i]);
      return true;
    });
    chain(src, split, snk);
    const drops: unknown[] = [];
    split.onDrop((d) => drops.push(d));
    src.push("a,b,c");
    expect(got).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ]);
    expect(drops).toEqual([]);
  });

  it("throws a clear error when no processing function is set", () => {
    const src = new UserSource<[number]>();
    src.connectToSink(new UserFilter<[number], [number]>());
    expect(() => {
      src.push(1);
    }).toThrow("UserFilter: no processing function set");
  });
});
