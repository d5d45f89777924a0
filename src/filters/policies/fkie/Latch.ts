import type { Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { packedDoubles, packedSlots } from "../packedArrays";
import { checkSlotCount, rejectSlot, unboundHost } from "./checks";

/** Options of {@link Latch}. */
export interface LatchOptions {
  /** The slot whose messages trigger an emission, or `"any"` for every slot. Default 0. */
  trigger?: number | "any";
}

/**
 * fkie_message_filters' `combiner_policies::Latch` (3.3.0; reference fkie-message-filters.md
 * §2.4): keeps the latest message of every slot and, when the trigger slot (or any slot) receives
 * one and every slot holds a value, emits the latched values. Values are reused across sets;
 * stamps are never read (headerless messages are fine).
 *
 * Drops: a latched message replaced before it was ever emitted → `superseded`; `reset(true)`
 * reports never-emitted latched messages as `reset` (a message already emitted was used, so it
 * is not a drop).
 *
 * ```ts
 * const policy = new Latch<Msg>(2).triggerOn(0);
 * policy.bind(host);
 * policy.add(1, stamp, calibration, stamp); // latched
 * policy.add(0, stamp, image, stamp); // emits [image, calibration]
 * ```
 */
export class Latch<T> extends SlotPolicy<T, PolicyHost<T>> {
  #trigger: number | "any" = 0;
  readonly #items: (T | undefined)[];
  readonly #stamps: Stamp[];
  /** 0 = empty, 1 = latched and never emitted, 2 = latched and emitted at least once. */
  readonly #state: Uint8Array;

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link LatchOptions}; throws RangeError on a trigger that is not a slot
   */
  public constructor(slots: number, options: LatchOptions = {}) {
    checkSlotCount(slots, "fkie/latch");
    super("fkie/latch", slots, "accept", unboundHost("fkie/latch"));
    this.#items = packedSlots<T>(slots);
    this.#stamps = packedDoubles(slots).fill(NaN);
    this.#state = new Uint8Array(slots);
    const trigger = options.trigger ?? 0;
    if (trigger === "any") {
      this.triggerOnAny();
    } else {
      this.triggerOn(trigger);
    }
  }

  /** The trigger slot, or `"any"`. */
  public get trigger(): number | "any" {
    return this.#trigger;
  }

  /** Emit only when `slot` receives a message. Throws RangeError if `slot` does not exist. */
  public triggerOn(slot: number): this {
    if (!this.isSlot(slot)) {
      throw new RangeError(
        `fkie/latch: trigger ${String(slot)} is not a slot (use 0..${this.slots - 1} or "any")`,
      );
    }
    this.#trigger = slot;
    return this;
  }

  /** Emit whenever any slot receives a message. */
  public triggerOnAny(): this {
    this.#trigger = "any";
    return this;
  }

  /** Latches one message and emits if it is a trigger and every slot holds a value (§2.4). */
  public override add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    if (!this.isSlot(slot)) {
      rejectSlot(this, slot);
    }
    const replaced = this.#state[slot] === 1;
    const oldItem = this.#items[slot] as T;
    const oldStamp = this.#stamps[slot]!;
    this.#items[slot] = item;
    this.#stamps[slot] = stamp;
    this.#state[slot] = 1;
    if (replaced) {
      this.host.drop(slot, oldStamp, oldItem, "superseded");
    }
    if (this.#trigger !== "any" && this.#trigger !== slot) {
      return;
    }
    for (let i = 0; i < this.slots; i++) {
      if (this.#state[i] === 0) {
        return;
      }
    }
    const state = this.#state;
    for (let i = 0; i < state.length; i++) {
      state[i] = 2; // a loop: for a few slots, cheaper than the fill builtin
    }
    this.#emitHeld();
  }

  /** Clears the latched values (never-emitted ones reported as `reset` if asked). */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      const item = this.#items[i] as T;
      const wasPending = this.#state[i] === 1;
      this.#items[i] = undefined;
      this.#state[i] = 0;
      if (reportDrops && wasPending) {
        this.host.drop(i, this.#stamps[i]!, item, "reset");
      }
      this.#stamps[i] = NaN;
    }
  }

  /**
   * Emits the latched messages. For 2 and 3 slots the set is one array literal: when the host's
   * emit is inlined and does not keep the array (a Combiner's sinks get the items as arguments),
   * escape analysis removes the allocation; and no stamps array is built for a host that does
   * not read it.
   */
  #emitHeld(): void {
    const held = this.#items;
    const st = this.#stamps;
    const readsStamps = this.readsStamps;
    if (held.length === 2) {
      this.host.emit([held[0] as T, held[1] as T], readsStamps ? [st[0]!, st[1]!] : NO_STAMPS);
    } else if (held.length === 3) {
      this.host.emit(
        [held[0] as T, held[1] as T, held[2] as T],
        readsStamps ? [st[0]!, st[1]!, st[2]!] : NO_STAMPS,
      );
    } else {
      this.host.emit(held.slice() as T[], readsStamps ? st.slice() : NO_STAMPS);
    }
  }
}
