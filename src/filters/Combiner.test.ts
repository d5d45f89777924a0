import { describe, expect, it } from "vitest";

import { Combiner } from "./Combiner";
import type { DropEvent, DropReason } from "./DropReason";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { Sink } from "./Sink";
import { UserSource } from "./UserSource";
import type { CombinerPolicy, PolicyHost } from "./policies/CombinerPolicy";
import { ApproximateTime } from "./policies/fkie";

/**
 * A tiny test policy, written for these tests: a FIFO of capacity `cap` per slot (a full slot
 * drops its oldest item as `superseded`); whenever every slot holds something, one item of each
 * is emitted. Stamps are only passed through.
 */
class TestFifo<T> implements CombinerPolicy<T> {
  public readonly type = "test/fifo";
  public acceptsHeaderless = false;
  public readonly slots: number;
  public readonly cap: number;
  public host: PolicyHost<T> | undefined;
  /** Number of `add` calls this policy received. */
  public added = 0;
  #queues: { stamp: number; item: T }[][];

  public constructor(slots: number, cap = 1) {
    this.slots = slots;
    this.cap = cap;
    this.#queues = Array.from({ length: slots }, () => []);
  }
  public bind(host: PolicyHost<T>): void {
    this.host = host;
  }
  public add(slot: number, stamp: number, item: T): void {
    this.added++;
    const q = this.#queues[slot]!;
    q.push({ stamp, item });
    if (q.length > this.cap) {
      const old = q.shift()!;
      this.host!.drop(slot, old.stamp, old.item, "superseded");
    }
    while (this.#queues.every((x) => x.length > 0)) {
      const heads = this.#queues.map((x) => x.shift()!);
      this.host!.emit(
        heads.map((h) => h.item),
        heads.map((h) => h.stamp),
      );
    }
  }
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public reset(reportDrops?: boolean): void {
    this.#queues.forEach((q, slot) => {
      if (reportDrops === true) {
        for (const h of q) {
          this.host!.drop(slot, h.stamp, h.item, "reset");
        }
      }
      q.length = 0;
    });
  }
}

type Pair = [number, number];
class ExpectedException extends Error {}

class Recorder<In extends unknown[]> extends Sink<In> {
  public readonly got: In[] = [];
  protected override receive(...ins: In): void {
    this.got.push(ins);
  }
}

type Stamped = { stamp: number; v: string };
const stampOf = (m: Stamped) => m.stamp;
const m = (stamp: number, v = String(stamp)): Stamped => ({ stamp, v });
const brief = (d: DropEvent<Stamped>): [number, number, DropReason] => [d.slot, d.stamp, d.reason];

/**
 * Two sources a and b combined by `policy` (slot 0 and 1) into the Recorder `out`; `drops`
 * collects what the combiner reports.
 */
function twoSlots(policy: CombinerPolicy<Stamped>) {
  const a = new UserSource<[Stamped]>();
  const b = new UserSource<[Stamped]>();
  const combiner = new Combiner<[Stamped, Stamped]>(policy, { stampOf });
  combiner.connectToSources(a, b);
  const out = new Recorder<[Stamped, Stamped]>();
  combiner.connectToSink(out);
  const drops: DropEvent<Stamped>[] = [];
  combiner.onDrop((d) => drops.push(d));
  return { a, b, combiner, out, drops };
}

describe("Combiner", () => {
  it("upstream test_combiner_fifo: pairs combine to a quadruple; capacity 1 overwrites; a sink exception propagates", () => {
    const src1 = new UserSource<[Pair]>();
    const src2 = new UserSource<[Pair]>();
    const combiner = new Combiner<[Pair, Pair]>(new TestFifo<Pair>(2, 1), { stampOf: () => 0 });
    let calls = 0;
    const snk = new SimpleUserFilter<[Pair, Pair]>(([i1, i2], [d1, d2]) => {
      calls++;
      if (i1 !== 1 || i2 !== 2 || d1 !== 3.14) {
        throw new Error("unexpected");
      }
      if (d2 !== 6.28) {
        throw new ExpectedException("d2 != 6.28");
      }
      return true;
    });
    combiner.connectToSources(src1, src2);
    combiner.connectToSink(snk);
    src1.push([1, 2]);
    src2.push([3.14, 6.28]);
    src2.push([3.14, 0]);
    expect(() => {
      src1.push([1, 2]);
    }).toThrow(ExpectedException);
    expect(calls).toBe(2);
    // The policy moved on before emitting: the next set works.
    src1.push([1, 2]);
    src2.push([3.14, 6.28]);
    expect(calls).toBe(3);
  });

  it("emits the items in slot order; drops carry slot, stamp and reason once each", () => {
    const { a, b, combiner, out, drops: drops1 } = twoSlots(new TestFifo<Stamped>(2));
    const drops2: DropEvent<Stamped>[] = [];
    combiner.onDrop((d) => drops2.push(d));
    b.push(m(10));
    b.push(m(20)); // supersedes 10 on slot 1
    a.push(m(15));
    expect(out.got.map(([x, y]) => [x.stamp, y.stamp])).toEqual([[15, 20]]);
    expect(drops1.map(brief)).toEqual([[1, 10, "superseded"]]);
    expect(drops2).toEqual(drops1);
    expect(drops1[0]!.item).toEqual(m(10));
  });

  it("onDropArgs handlers get the same drops as onDrop listeners, as arguments, until disconnected", () => {
    const a = new UserSource<[Stamped]>();
    const b = new UserSource<[Stamped]>();
    const combiner = new Combiner<[Stamped, Stamped]>(new TestFifo<Stamped>(2), { stampOf });
    combiner.connectToSources(a, b);
    const events: DropEvent<Stamped>[] = [];
    const args: unknown[][] = [];
    combiner.onDrop((d) => events.push(d));
    const connection = combiner.onDropArgs((slot, stamp, reason, item, detail) => {
      args.push([slot, stamp, reason, item, detail]);
    });
    b.push(m(10));
    b.push(m(20)); // supersedes 10 on slot 1
    a.push(m(5)); // emits (5, 20)
    b.push(m(30));
    connection.disconnect();
    b.push(m(40)); // supersedes 30: only the onDrop listener hears it
    expect(args).toEqual(
      events.slice(0, args.length).map((e) => [e.slot, e.stamp, e.reason, e.item, e.detail]),
    );
    expect(args.map((x) => [x[0], x[1], x[2]])).toEqual([[1, 10, "superseded"]]);
    expect(events.map(brief)).toEqual([
      [1, 10, "superseded"],
      [1, 30, "superseded"],
    ]);
  });

  it("a sole drop handler, then two, then the other alone, then none: each drop reaches exactly the handlers connected", () => {
    const b = new UserSource<[Stamped]>();
    const combiner = new Combiner<[Stamped, Stamped]>(new TestFifo<Stamped>(2), { stampOf });
    combiner.connectToSources(new UserSource<[Stamped]>(), b);
    const heard: string[] = [];
    const first = combiner.onDropArgs((slot, stamp, reason) => {
      heard.push(`first ${slot} ${stamp} ${reason}`);
    });
    b.push(m(10));
    b.push(m(20)); // drops 10: the sole handler
    const second = combiner.onDropArgs((_slot, stamp) => {
      heard.push(`second ${stamp}`);
    });
    b.push(m(30)); // drops 20: both, in registration order
    first.disconnect();
    b.push(m(40)); // drops 30: the second, now alone
    second.disconnect();
    b.push(m(50)); // drops 40: nobody listens
    const events: DropEvent<Stamped>[] = [];
    combiner.onDrop((d) => events.push(d));
    b.push(m(60)); // drops 50: a listener alone still hears it
    expect(heard).toEqual(["first 1 10 superseded", "first 1 20 superseded", "second 20", "second 30"]);
    expect(events.map(brief)).toEqual([[1, 50, "superseded"]]);
  });

  it("handlers connected or disconnected by a drop handler take effect from the next drop", () => {
    const b = new UserSource<[Stamped]>();
    const combiner = new Combiner<[Stamped, Stamped]>(new TestFifo<Stamped>(2), { stampOf });
    combiner.connectToSources(new UserSource<[Stamped]>(), b);
    const heard: string[] = [];
    let late: { disconnect(): void } | undefined;
    const early = combiner.onDropArgs((_slot, stamp) => {
      heard.push(`early ${stamp}`);
    });
    combiner.onDropArgs((_slot, stamp) => {
      heard.push(`main ${stamp}`);
      // Changes made while a drop is being reported apply to the next drop, not to this one.
      early.disconnect();
      late ??= combiner.onDropArgs((_s, st) => {
        heard.push(`late ${st}`);
      });
    });
    b.push(m(10));
    b.push(m(20)); // drops 10
    b.push(m(30)); // drops 20
    expect(heard).toEqual(["early 10", "main 10", "main 20", "late 20"]);
  });

  it("reporting drops never changes what is emitted", () => {
    const run = (drops: "listen" | "ignore") => {
      const srcs = [
        new UserSource<[Stamped]>(),
        new UserSource<[Stamped]>(),
        new UserSource<[Stamped]>(),
      ] as const;
      const c = new Combiner<[Stamped, Stamped, Stamped]>(new TestFifo<Stamped>(3, 2), { stampOf });
      c.connectToSources(...srcs);
      const out = new Recorder<[Stamped, Stamped, Stamped]>();
      c.connectToSink(out);
      if (drops === "listen") {
        c.onDrop(() => undefined);
      }
      for (let i = 0; i < 60; i++) {
        srcs[(i * 7) % 3]!.push(m(i));
      }
      return out.got.map((t) => t.map((x) => x.stamp));
    };
    expect(run("listen")).toEqual(run("ignore"));
    expect(run("listen").length).toBeGreaterThan(0);
  });

  it("headerless items are dropped as no-header unless the policy accepts them", () => {
    const policy = new TestFifo<Stamped>(2);
    const { a, b, out, drops } = twoSlots(policy);
    a.push(m(NaN, "no header"));
    expect(drops.map((d) => [d.slot, d.reason, d.item.v])).toEqual([[0, "no-header", "no header"]]);
    expect(drops[0]!.stamp).toBeNaN();
    policy.acceptsHeaderless = true;
    a.push(m(NaN, "accepted"));
    b.push(m(5));
    expect(out.got.map(([x, y]) => [x.v, y.v])).toEqual([["accepted", "5"]]);
    expect(drops).toHaveLength(1);
  });

  it("passes arrivalOf to the policy (default: the stamp)", () => {
    class Recording extends TestFifo<Stamped> {
      public readonly seen: [number, number][] = [];
      public override add(slot: number, stamp: number, item: Stamped, arrival?: number): void {
        this.seen.push([stamp, arrival!]);
        super.add(slot, stamp, item);
      }
    }
    const p1 = new Recording(1);
    const p2 = new Recording(1);
    const c1 = new Combiner<[Stamped]>(p1, { stampOf });
    const c2 = new Combiner<[Stamped]>(p2, { stampOf, arrivalOf: (x) => x.stamp + 1000 });
    // A JavaScript caller's `arrivalOf: null` means "none", as undefined does.
    const p3 = new Recording(1);
    const c3 = new Combiner<[Stamped]>(p3, {
      stampOf,
      arrivalOf: null as unknown as (x: Stamped) => number,
    });
    const s = new UserSource<[Stamped]>();
    s.connectToSink(c1.sink(0));
    c2.sink(0).connectToSource(s);
    s.connectToSink(c3.sink(0));
    s.push(m(7));
    expect(p1.seen).toEqual([[7, 7]]);
    expect(p2.seen).toEqual([[7, 1007]]);
    expect(p3.seen).toEqual([[7, 7]]);
  });

  it("reset and setPolicy report held items as reset; setPolicy rebinds and checks the slot count", () => {
    const p1 = new TestFifo<Stamped>(2, 3);
    const { a, b, combiner, out, drops } = twoSlots(p1);
    a.push(m(1));
    a.push(m(2));
    combiner.reset();
    expect(drops.map(brief)).toEqual([
      [0, 1, "reset"],
      [0, 2, "reset"],
    ]);
    b.push(m(3));
    const p2 = new TestFifo<Stamped>(2, 1);
    expect(combiner.setPolicy(p2)).toBe(combiner);
    expect(combiner.policy).toBe(p2);
    expect(p2.host).toBe(p1.host);
    expect(drops.map(brief).slice(2)).toEqual([[1, 3, "reset"]]);
    a.push(m(4));
    b.push(m(5));
    expect(out.got.map(([x, y]) => [x.stamp, y.stamp])).toEqual([[4, 5]]);
    expect([p1.added, p2.added]).toEqual([3, 2]); // every input feeds the new policy

    expect(() => combiner.setPolicy(new TestFifo<Stamped>(3))).toThrow(
      "Combiner.setPolicy: the new policy (test/fifo) has 3 slots, but this combiner has 2 inputs; create a new Combiner instead",
    );
  });

  it("sink(i), connectToSources and disconnect check their arguments and cut both sides", () => {
    const combiner = new Combiner<[Stamped, Stamped]>(new TestFifo<Stamped>(2), {
      stampOf,
    }).setName("sync");
    expect(combiner.slots).toBe(2);
    expect(() => combiner.sink(2)).toThrow(
      "Combiner.sink(2): no such input; this combiner has slots 0..1",
    );
    expect(combiner.sink(1).name).toBe("sync.sink(1)");
    const a = new UserSource<[Stamped]>();
    expect(() => (combiner.connectToSources as (...s: unknown[]) => unknown)(a)).toThrow(
      "Combiner.connectToSources: got 1 sources for 2 inputs",
    );
    const b = new UserSource<[Stamped]>();
    const conns = combiner.connectToSources(a, b);
    const out = new Recorder<[Stamped, Stamped]>();
    const outConn = combiner.connectToSink(out);
    combiner.disconnect();
    expect([...conns, outConn].map((c) => c.connected)).toEqual([false, false, false]);
    expect(() => new Combiner<[Stamped]>(new TestFifo<Stamped>(1), {} as never)).toThrow(
      /stampOf must be a function/,
    );
  });

  it("a cycle through the combiner is reported, not a stack overflow", () => {
    const a = new UserSource<[Stamped]>();
    const combiner = new Combiner<[Stamped]>(new TestFifo<Stamped>(1), { stampOf });
    a.connectToSink(combiner.sink(0));
    const back = new SimpleUserFilter<[Stamped]>(() => true);
    combiner.connectToSink(back);
    back.connectToSink(combiner.sink(0));
    expect(() => {
      a.push(m(1));
    }).toThrow(/cycle in the filter graph at Combiner.sink\(0\)/);
  });

  it("is transparent: the graph emits and drops exactly what the bare fkie ApproximateTime does", () => {
    // A deterministic 3-topic stream (LCG jitter), delivered in stamp order.
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const events: { slot: number; msg: Stamped }[] = [];
    const periods = [33, 10, 20];
    for (let slot = 0; slot < 3; slot++) {
      for (let k = 0; k < 300; k++) {
        const stamp = 1000 + k * periods[slot]! + Math.floor(rand() * 5);
        events.push({ slot, msg: m(stamp, `${slot}:${k}`) });
      }
    }
    events.sort((a, b) =>
      a.msg.stamp !== b.msg.stamp ? a.msg.stamp - b.msg.stamp : a.slot - b.slot,
    );

    const bareTuples: string[][] = [];
    const bareDrops: [number, number, string, string][] = [];
    const bare = new ApproximateTime<Stamped>(3, { maxQueueSize: 4, maxAge: null });
    bare.bind({
      emit: (items) => bareTuples.push(items.map((x) => x.v)),
      drop: (slot, stamp, item, reason) => bareDrops.push([slot, stamp, reason, item.v]),
    });
    for (const e of events) {
      bare.add(e.slot, e.msg.stamp, e.msg, e.msg.stamp);
    }

    const srcs = [
      new UserSource<[Stamped]>(),
      new UserSource<[Stamped]>(),
      new UserSource<[Stamped]>(),
    ] as const;
    const combiner = new Combiner<[Stamped, Stamped, Stamped]>(
      new ApproximateTime<Stamped>(3, { maxQueueSize: 4, maxAge: null }),
      { stampOf },
    );
    combiner.connectToSources(...srcs);
    const out = new Recorder<[Stamped, Stamped, Stamped]>();
    combiner.connectToSink(out);
    const drops: [number, number, string, string][] = [];
    combiner.onDrop((d) => drops.push([d.slot, d.stamp, d.reason, d.item.v]));
    for (const e of events) {
      srcs[e.slot]!.push(e.msg);
    }
    expect(bareTuples.length).toBeGreaterThan(50);
    expect(out.got.map((t) => t.map((x) => x.v))).toEqual(bareTuples);
    expect(drops).toEqual(bareDrops);
  });
});
