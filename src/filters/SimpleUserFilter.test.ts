import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

describe("SimpleUserFilter", () => {
  it("upstream test_simple_user_filter: 42 passes, -1 is dropped (reported as discarded)", () => {
    const src = new UserSource<[number]>();
    const flt = new SimpleUserFilter<[number]>();
    const snk = new SimpleUserFilter<[number]>();
    chain(src, flt, snk);
    flt.setProcessingFunction((i) => i === 42);
    const got: number[] = [];
    snk.setProcessingFunction((i) => {
      got.push(i);
      if (i !== 42) {
        throw new Error("i != 42");
      }
      return true;
    });
    const drops: DropEvent<number>[] = [];
    flt.onDrop((d) => drops.push(d));
    src.push(42);
    src.push(-1);
    expect(got).toEqual([42]);
    expect(drops).toEqual([
      {
        slot: 0,
        stamp: NaN,
        reason: "discarded",
        item: -1,
        detail: "the filter function returned false",
      },
    ]);
  });

  it("labels drops with stampOf and carries N-ary inputs as a tuple", () => {
    const src = new UserSource<[number, string]>();
    const flt = new SimpleUserFilter<[number, string]>((n) => n > 0, { stampOf: (n) => n * 10 });
    src.connectToSink(flt);
    const drops: DropEvent<[number, string]>[] = [];
    flt.onDrop((d) => drops.push(d));
    src.push(-3, "x");
    expect(drops.map((d) => [d.stamp, d.item, d.reason])).toEqual([[-30, [-3, "x"], "discarded"]]);
  });

  it("throws a clear error when no processing function is set (fkie: bad_function_call)", () => {
    const src = new UserSource<[number]>();
    const flt = new SimpleUserFilter<[number]>().setName("gate");
    src.connectToSink(flt);
    expect(() => {
      src.push(1);
    }).toThrow(
      "gate: no processing function set; call setProcessingFunction() before data arrives",
    );
  });
});
