import { Writable } from "node:stream";

import { parseConfig } from "../../pipeline";
import { replay } from "../commands/replay";

/** One message of a replay trace: its slot, header stamp (null = headerless) and arrival, ns. */
export interface TraceEvent {
  readonly slot: number;
  readonly stamp: bigint | null;
  readonly arrival: bigint;
}

/** Sorts `events` into arrival order (stable: equal arrivals keep their order), as a recorder logs them. */
export function sortByArrival<E extends TraceEvent>(events: E[]): E[] {
  return events.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : 0));
}

/** The tuples `lockstep replay` prints for a trace, as arrays of ns strings (null = headerless). */
export async function replayTuples(config: unknown, events: readonly TraceEvent[]): Promise<(string | null)[][]> {
  let text = "";
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const lines = events.map((e) => `${JSON.stringify({ slot: e.slot, stamp: e.stamp == null ? null : e.stamp.toString(), arrival: e.arrival.toString() })}\n`);
  await replay(parseConfig(config), (async function* () {
    yield lines.join("");
  })(), out);
  return text
    .trim()
    .split("\n")
    .filter((l) => l.startsWith('{"tuple"'))
    .map((l) => (JSON.parse(l) as { tuple: (string | null)[] }).tuple);
}
