import { describe, expect, it } from "vitest";

import { Divider } from "./Divider";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

describe("Divider", () => {
  it("upstream test_divider: (int, double) reaches two sinks, element order 0 then 1", () => {
    const src = new UserSource<[number, number]>();
    const div = new Divider<[number, number]>(2);
    const log: string[] = [];
    const snk1 = new SimpleUserFilter<[number]>((i) => {
      log.push(`int ${i}`);
      if (i !== 42) {
        throw new Error("i != 42");
      }
      return true;
    });
    const snk2 = new SimpleUserFilter<[number]>((d) => {
      log.push(`double ${d}`);
      if (d !== 3.14) {
        throw new Error("d != 3.14");
      }
      return true;
    });
    chain(src, div);
    const conns = div.connectToSinks(snk1, snk2);
    src.push(42, 3.14);
    expect(log).toEqual(["int 42", "double 3.14"]);
    expect(conns.map((c) => c.connected)).toEqual([true, true]);
  });

  it("source(i) outputs can be connected one by one; errors name the bad index", () => {
    const src = new UserSource<[string, number, boolean]>();
    const div = new Divider<[string, number, boolean]>(3).setName("split");
    src.connectToSink(div);
    const got: unknown[] = [];
    div.source(2).connectToSink(new SimpleUserFilter<[boolean]>((b) => got.push(b) > 0));
    src.push("x", 1, true);
    expect(got).toEqual([true]);
    expect(() => div.source(3)).toThrow("Divider.source(3): no such output; outputs are 0..2");
    expect(() => new Divider<[]>(0)).toThrow(/arity must be an integer >= 1/);
  });

  it("disconnect cuts the outputs too", () => {
    const src = new UserSource<[number, number]>();
    const div = new Divider<[number, number]>(2);
    src.connectToSink(div);
    const got: number[] = [];
    const conns = div.connectToSinks(
      new SimpleUserFilter<[number]>((a) => got.push(a) > 0),
      new SimpleUserFilter<[number]>((b) => got.push(b) > 0),
    );
    div.disconnect();
    src.push(1, 2);
    expect(got).toEqual([]);
    expect(conns.map((c) => c.connected)).toEqual([false, false]);
  });
});
