import fc from "fast-check";
import { describe, expect, it } from "vitest";

import type { Connection } from "./Connection";
import { Sink } from "./Sink";
import { UserSource } from "./UserSource";

/** Records what it receives, tagged with its own index, into a log shared by all sinks. */
class Tagged extends Sink<[number]> {
  public constructor(
    private readonly tag: number,
    private readonly log: [number, number][],
  ) {
    super();
  }
  protected override receive(x: number): void {
    this.log.push([this.tag, x]);
  }
}

type Op =
  | { kind: "connect"; sink: number }
  | { kind: "disconnect"; pick: number }
  | { kind: "disconnectSink"; sink: number }
  | { kind: "disconnectAll" }
  | { kind: "push"; value: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("connect" as const), sink: fc.nat(2) }),
  fc.record({ kind: fc.constant("disconnect" as const), pick: fc.nat(7) }),
  fc.record({ kind: fc.constant("disconnectSink" as const), sink: fc.nat(2) }),
  fc.record({ kind: fc.constant("disconnectAll" as const) }),
  fc.record({ kind: fc.constant("push" as const), value: fc.integer() }),
);

/** Disconnects the entry `pick` designates (modulo the count) and returns the others. */
function disconnectPicked<E extends { connection: Connection }>(live: E[], pick: number): E[] {
  const entry = live[pick % Math.max(1, live.length)];
  if (entry == undefined) {
    return live;
  }
  entry.connection.disconnect();
  return live.filter((e) => e !== entry);
}

/** Reports every number it receives as a drop (the stamp and the item are the number). */
class Dropper extends Sink<[number], number> {
  protected override receive(x: number): void {
    this.reportDrop(0, x, x, "not-selected");
  }
}

type ObserverOp =
  | { kind: "handler" }
  | { kind: "listener" }
  | { kind: "remove"; pick: number }
  | { kind: "drop"; value: number };

const observerOpArb: fc.Arbitrary<ObserverOp> = fc.oneof(
  fc.record({ kind: fc.constant("handler" as const) }),
  fc.record({ kind: fc.constant("listener" as const) }),
  fc.record({ kind: fc.constant("remove" as const), pick: fc.nat(7) }),
  fc.record({ kind: fc.constant("drop" as const), value: fc.integer() }),
);

describe("a filter's graph state (property)", () => {
  // The oracle is the list of live connections in the order they were made: a push reaches each
  // connection's sink once, in that order (a sink connected twice receives twice). Single-sink
  // sources take a shortcut in the delivery code; these sequences move sources in and out of it.
  it("a push reaches exactly the sinks of the live connections, in connection order", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        const log: [number, number][] = [];
        const expected: [number, number][] = [];
        const src = new UserSource<[number]>();
        const sinks = [0, 1, 2].map((k) => new Tagged(k, log));
        let live: { sink: number; connection: Connection }[] = [];
        for (const op of ops) {
          switch (op.kind) {
            case "connect":
              live.push({ sink: op.sink, connection: src.connectToSink(sinks[op.sink]!) });
              break;
            case "disconnect":
              live = disconnectPicked(live, op.pick);
              break;
            case "disconnectSink":
              sinks[op.sink]!.disconnectFromAllSources();
              live = live.filter((e) => e.sink !== op.sink);
              break;
            case "disconnectAll":
              src.disconnectFromAllSinks();
              live = [];
              break;
            case "push":
              src.push(op.value);
              for (const e of live) {
                expected.push([e.sink, op.value]);
              }
              break;
          }
        }
        expect(log).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  // The oracle: the observers registered and not removed, positional handlers first, each in
  // registration order; every drop reaches each of them once. A filter with a single handler
  // takes a shortcut in the reporting code; these sequences move it in and out of it.
  it("a drop reaches every registered observer once: handlers in order, then listeners in order", () => {
    fc.assert(
      fc.property(fc.array(observerOpArb, { maxLength: 40 }), (ops) => {
        const log: [number, number][] = [];
        const expected: [number, number][] = [];
        const filter = new Dropper();
        const src = new UserSource<[number]>();
        src.connectToSink(filter);
        let live: { id: number; positional: boolean; connection: Connection }[] = [];
        let next = 0;
        for (const op of ops) {
          switch (op.kind) {
            case "handler": {
              const id = next++;
              const connection = filter.onDropArgs((_slot, stamp) => {
                log.push([id, stamp]);
              });
              live.push({ id, positional: true, connection });
              break;
            }
            case "listener": {
              const id = next++;
              const connection = filter.onDrop((event) => {
                log.push([id, event.stamp]);
              });
              live.push({ id, positional: false, connection });
              break;
            }
            case "remove":
              live = disconnectPicked(live, op.pick);
              break;
            case "drop":
              src.push(op.value);
              for (const e of [
                ...live.filter((l) => l.positional),
                ...live.filter((l) => !l.positional),
              ]) {
                expected.push([e.id, op.value]);
              }
              break;
          }
        }
        expect(log).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
