// Test support for the policies (not re-exported): what the plain models of the policies share,
// and the one form in which a model's events and a policy's recorded events are compared.
import type { PolicyEvent } from "./policyRecorder";
import type { Stamp } from "../../../time";

/** A message a model holds. */
export interface HeldMessage<T> {
  readonly stamp: Stamp;
  readonly item: T;
}

/** What a model reports, in order: an emitted set (items in slot order) or a dropped message. */
export type PolicyModelEvent<T> =
  | { kind: "emit"; items: T[] }
  | { kind: "drop"; slot: number; stamp: Stamp; item: T; reason: string };

/** One line per event, items named by `id`: "emit 1,4,7" or "drop <slot> <stamp> #<id> <reason>". */
export function eventLines<T>(
  events: readonly (PolicyEvent<T> | PolicyModelEvent<T>)[],
  id: (item: T) => number,
): string[] {
  return events.map((e) =>
    e.kind === "drop"
      ? `drop ${e.slot} ${e.stamp} #${id(e.item)} ${e.reason}`
      : `emit ${e.items.map(id).join(",")}`,
  );
}
