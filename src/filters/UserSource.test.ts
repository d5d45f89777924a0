import { describe, expect, it } from "vitest";

import { Sink } from "./Sink";
import { UserSource } from "./UserSource";

class Recorder<In extends unknown[]> extends Sink<In> {
  public readonly got: In[] = [];
  protected override receive(...ins: In): void {
    this.got.push(ins);
  }
}

describe("UserSource", () => {
  it("pushes unary and N-ary data with the exact arguments", () => {
    const one = new UserSource<[string]>();
    const r1 = new Recorder<[string]>();
    one.connectToSink(r1);
    one.push("a");
    const three = new UserSource<[number, string, boolean]>();
    const r3 = new Recorder<[number, string, boolean]>();
    three.connectToSink(r3);
    three.push(1, "b", false);
    expect(r1.got).toEqual([["a"]]);
    expect(r3.got).toEqual([[1, "b", false]]);
  });

  it("pushes every arity exactly, including none and more than four values", () => {
    const cases: unknown[][] = [[], [1], [1, 2], [1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 4, 5, 6, 7]];
    for (const args of cases) {
      const src = new UserSource<unknown[]>();
      const r = new Recorder<unknown[]>();
      src.connectToSink(r);
      src.push(...args);
      src.push(...args.map((x) => String(x)));
      expect(r.got).toEqual([args, args.map((x) => String(x))]);
    }
  });

  it("asFunction pushes like push (fkie's src(args...))", () => {
    const src = new UserSource<[number, number]>();
    const r = new Recorder<[number, number]>();
    src.connectToSink(r);
    const f = src.asFunction();
    f(1, 2);
    f(3, 4);
    expect(r.got).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it("without sinks a push does nothing", () => {
    expect(() => {
      new UserSource<[number]>().push(1);
    }).not.toThrow();
  });
});
