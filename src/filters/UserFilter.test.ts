import { describe, expect, it } from "vitest";

import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserFilter } from "./UserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

describe("UserFilter", () => {
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
