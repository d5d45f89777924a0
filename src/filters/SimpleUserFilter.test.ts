import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";

describe("SimpleUserFilter", () => {
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
