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

describe("connections of a source (property)", () => {
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
            case "disconnect": {
              const entry = live[op.pick % Math.max(1, live.length)];
              if (entry) {
                entry.connection.disconnect();
                live = live.filter((e) => e !== entry);
              }
              break;
            }
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
});
