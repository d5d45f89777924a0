import { describe, expect, it } from "vitest";

import { Filter } from "./Filter";
import { FilterCycleError } from "./FilterBase";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { Sink } from "./Sink";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

class Recorder<In extends unknown[]> extends Sink<In> {
  public readonly got: In[] = [];
  public constructor(private readonly log?: string[]) {
    super();
  }
  protected override receive(...ins: In): void {
    this.got.push(ins);
    this.log?.push(this.name);
  }
}

class AddOne extends Filter<[number], [number]> {
  protected override receive(x: number): void {
    this.send1(x + 1);
  }
}

describe("chain and the graph core", () => {
  it("FilterLoop (upstream test_filter_loop): chain(flt, flt) makes the next push throw", () => {
    const src = new UserSource<[number]>();
    const flt = new SimpleUserFilter<[number]>();
    let calls = 0;
    flt.setProcessingFunction(() => {
      calls++;
      return true;
    });
    chain(src, flt);
    chain(flt, flt);
    expect(() => {
      src.push(0);
    }).toThrow(FilterCycleError);
    expect(calls).toBe(1); // entered once, the loop-back is refused before a second call
    expect(() => {
      src.push(0);
    }).toThrow("recursive invocation detected: a cycle in the filter graph at SimpleUserFilter");
  });

  it("a longer cycle names the filter reached twice, and the guard is released afterwards", () => {
    const src = new UserSource<[number]>();
    const a = new AddOne().setName("a");
    const b = new AddOne().setName("b");
    chain(src, a, b);
    const back = b.connectToSink(a);
    expect(() => {
      src.push(1);
    }).toThrow(/cycle in the filter graph at a /);
    back.disconnect();
    const out = new Recorder<[number]>();
    b.connectToSink(out);
    src.push(1);
    expect(out.got).toEqual([[3]]);
  });

  it("chain connects adjacent pairs and returns the connections in pair order", () => {
    const src = new UserSource<[number]>();
    const a = new AddOne();
    const b = new AddOne();
    const out = new Recorder<[number]>();
    const conns = chain(src, a, b, out);
    expect(conns).toHaveLength(3);
    expect(conns.every((c) => c.connected)).toBe(true);
    src.push(40);
    expect(out.got).toEqual([[42]]);
    conns[1]!.disconnect();
    expect(conns[1]!.connected).toBe(false);
    src.push(40);
    expect(out.got).toEqual([[42]]);
  });

  it("chain rejects fewer than two filters and non-filters with a clear error", () => {
    const src = new UserSource<[number]>();
    expect(() => (chain as (...f: unknown[]) => unknown)(src)).toThrow(/at least 2 filters/);
    expect(() => (chain as (...f: unknown[]) => unknown)(src, {})).toThrow(
      "chain: argument 1 is not a Sink or Filter (it cannot receive)",
    );
  });

  it("delivers synchronously in connection order, several sinks per source", () => {
    const log: string[] = [];
    const src = new UserSource<[string]>();
    const s1 = new Recorder<[string]>(log).setName("s1");
    const s2 = new Recorder<[string]>(log).setName("s2");
    const s3 = new Recorder<[string]>(log).setName("s3");
    src.connectToSink(s1);
    s2.connectToSource(src);
    src.connectToSink(s3);
    src.push("x");
    expect(log).toEqual(["s1", "s2", "s3"]);
  });

  it("a sink disconnected by an earlier sink during a send does not receive that data", () => {
    const src = new UserSource<[number]>();
    const late = new Recorder<[number]>();
    let lateConn = src.connectToSink(late); // reassigned below to be second
    lateConn.disconnect();
    const killer = new SimpleUserFilter<[number]>(() => {
      lateConn.disconnect();
      return true;
    });
    src.connectToSink(killer);
    lateConn = src.connectToSink(late);
    src.push(1);
    expect(late.got).toEqual([]);
    expect(lateConn.connected).toBe(false);
  });

  it("an exception from a sink propagates; later sinks of that send are not called; the guard is released", () => {
    const src = new UserSource<[number]>();
    const thrower = new SimpleUserFilter<[number]>((x) => {
      if (x === 1) {
        throw new Error("boom");
      }
      return true;
    });
    const thrown = new Recorder<[number]>();
    thrower.connectToSink(thrown);
    const after = new Recorder<[number]>();
    src.connectToSink(thrower);
    src.connectToSink(after);
    expect(() => {
      src.push(1);
    }).toThrow("boom");
    expect(after.got).toEqual([]);
    src.push(2); // no FilterCycleError: the thrower's guard was released
    expect(thrown.got).toEqual([[2]]);
    expect(after.got).toEqual([[2]]);
  });

  it("a source's only sink: its exception releases the guard, and a sink it connects gets only later data", () => {
    const src = new UserSource<[number]>();
    const added = new Recorder<[number]>();
    let calls = 0;
    const only = new SimpleUserFilter<[number]>((x) => {
      calls++;
      if (x === 1) {
        throw new Error("boom");
      }
      if (x === 2) {
        src.connectToSink(added);
      }
      return true;
    });
    src.connectToSink(only);
    expect(() => {
      src.push(1);
    }).toThrow("boom");
    src.push(2); // the guard was released: no FilterCycleError
    expect(added.got).toEqual([]); // connected during the send of 2
    src.push(3);
    expect(calls).toBe(3);
    expect(added.got).toEqual([[3]]);
  });

  it("disconnect cuts both sides; disconnectFromAllSinks/Sources one side; idempotent", () => {
    const src = new UserSource<[number]>();
    const a = new AddOne();
    const out = new Recorder<[number]>();
    const [c1, c2] = chain(src, a, out);
    a.disconnect();
    expect(c1!.connected).toBe(false);
    expect(c2!.connected).toBe(false);
    a.disconnect();
    c1!.disconnect();
    src.push(1);
    expect(out.got).toEqual([]);

    const d1 = src.connectToSink(a);
    const d2 = a.connectToSink(out);
    a.disconnectFromAllSources();
    expect([d1.connected, d2.connected]).toEqual([false, true]);
    a.connectToSource(src);
    a.disconnectFromAllSinks();
    expect(d2.connected).toBe(false);
    src.push(1);
    expect(out.got).toEqual([]);
  });

  it("reset keeps connections", () => {
    const src = new UserSource<[number]>();
    const out = new Recorder<[number]>();
    src.connectToSink(out);
    src.reset();
    out.reset();
    src.push(5);
    expect(out.got).toEqual([[5]]);
  });

  it("a drop listener connection detaches the listener", () => {
    const src = new UserSource<[number]>();
    const flt = new SimpleUserFilter<[number]>(() => false);
    src.connectToSink(flt);
    const seen: number[] = [];
    const c = flt.onDrop((d) => seen.push(d.item));
    src.push(1);
    c.disconnect();
    src.push(2);
    expect(seen).toEqual([1]);
  });
});
