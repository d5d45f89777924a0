import type { Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { newItemArray } from "./freshArrays";
import { SlotPolicy } from "../SlotPolicy";
import { DOUBLE_SEED } from "../packedArrays";

/** A partial tuple as ROS's ExactTime drop callback receives it. */
export interface PartialTuple<T> {
  /** The tuple's stamp. */
  readonly stamp: Stamp;
  /** One entry per slot; `undefined` where no message had arrived (ROS: a null event). */
  readonly items: readonly (T | undefined)[];
  /** Why the tuple was dropped: "not-selected" (older than an emitted stamp) or "queue-overflow". */
  readonly reason: DropReason;
}

/** Options of {@link ExactTime} (config type `ros/exact-time`). */
export interface RosExactTimeOptions<T = unknown> {
  /** Max number of stored (incomplete) tuples; 0 = unlimited. Integer >= 0. */
  queueSize: number;
  /**
   * Called once per dropped partial tuple, after its messages were reported through
   * `host.drop` (ROS's `registerDropCallback`). Optional.
   */
  onPartialDrop?: (tuple: PartialTuple<T>) => void;
}

/** Marks a slot of a stored tuple that no message has filled yet (T may itself be undefined). */
const EMPTY: unique symbol = Symbol("empty slot");

// Why a stored tuple was erased, as `#erasedReason` keeps it: an index into REASONS.
const NOT_SELECTED = 0;
const QUEUE_OVERFLOW = 1;
const RESET = 2;
const REASONS: readonly DropReason[] = ["not-selected", "queue-overflow", "reset"];

/** Rows allocated at first (more are added by doubling). */
const INITIAL_ROWS = 16;

/**
 * ROS 2 message_filters `sync_policies::ExactTime` (8.0.2; reference ros-message-filters.md
 * §2.2): emits a set when every slot holds a message with the same stamp.
 *
 * Guarantees and quirks kept: tuples are keyed by stamp; a second message with the same stamp on
 * the same slot replaces the first (`duplicate-stamp` drop of the first). After an emission, every
 * stored tuple with a stamp <= the emitted one is dropped (`not-selected`). When more than
 * `queueSize` tuples are stored, the oldest BY STAMP are dropped (`queue-overflow`) — also right
 * after an emission. A late message older than the last emitted stamp is not rejected: it opens
 * a new tuple that is purged only by the next emission or by overflow. Every dropped message is
 * reported once through `host.drop`; each dropped tuple is also passed, whole and partial, to
 * `onPartialDrop` (ROS's drop callback). Drops are reported after the emission that caused them,
 * as ROS calls its drop signal after the output signal.
 *
 * ```ts
 * const policy = new ExactTime<Msg>(3, { queueSize: 10 }).setPartialDropCallback((t) => log(t));
 * ```
 */
export class ExactTime<T> extends SlotPolicy<T> {
  readonly #queueSize: number = 0;
  #onPartialDrop: ((tuple: PartialTuple<T>) => void) | undefined;

  // Each stored tuple is a row: its stamp, how many slots hold a message, and the messages at
  // `#rowItems[row * slots + slot]` (EMPTY where none). A row that holds no tuple is all EMPTY.
  // Rows are erased without moving anything and reused without allocating. Their number only
  // grows, to the most tuples held at once (about queueSize with a limit), and survives a reset.
  #rows = INITIAL_ROWS;
  #rowStamp = new Float64Array(INITIAL_ROWS);
  #rowCount = new Int32Array(INITIAL_ROWS);
  /** Grows in place (push), so a reference taken before a callback stays valid after it. */
  readonly #rowItems: (T | typeof EMPTY)[] = [];
  /** Rows that hold no tuple and are not waiting to be reported: `#free[0, #freeCount)`. */
  #free = new Int32Array(INITIAL_ROWS);
  #freeCount = INITIAL_ROWS;
  /** The stored tuples' rows, sorted by stamp ascending: a ring, `#length` from `#head`. */
  #order = new Int32Array(INITIAL_ROWS);
  #head = 0;
  #length = 0;
  /**
   * Rows erased by the adds in progress, with their reasons, waiting to be reported after the
   * emission: a stack, because an add made from a callback pushes its own above the caller's and
   * reports and pops them before it returns.
   */
  #erased = new Int32Array(INITIAL_ROWS);
  #erasedReason = new Uint8Array(INITIAL_ROWS);
  #erasedCount = 0;
  /**
   * The stamp add passes to #insert: a double field (see DOUBLE_SEED), not an argument, which a
   * call that is not inlined boxes.
   */
  #incoming = DOUBLE_SEED;

  public constructor(slots: number, options: RosExactTimeOptions<T>) {
    if (!Number.isInteger(slots) || slots < 2) {
      throw new RangeError(`ros/exact-time: slots must be an integer >= 2, got ${slots}`);
    }
    if (!Number.isSafeInteger(options.queueSize) || options.queueSize < 0) {
      throw new RangeError(`ros/exact-time: queueSize must be an integer >= 0 (0 = unlimited), got ${options.queueSize}`);
    }
    super("ros/exact-time", slots, "refuse");
    this.#queueSize = options.queueSize;
    this.#onPartialDrop = options.onPartialDrop;
    for (let i = 0; i < INITIAL_ROWS * slots; i++) {
      this.#rowItems.push(EMPTY);
    }
    for (let r = 0; r < INITIAL_ROWS; r++) {
      this.#free[r] = INITIAL_ROWS - 1 - r;
    }
  }

  /** Sets (or clears) the partial-tuple drop callback (ROS `registerDropCallback`). */
  public setPartialDropCallback(callback: ((tuple: PartialTuple<T>) => void) | undefined): this {
    this.#onPartialDrop = callback;
    return this;
  }

  /**
   * Adds one message (reference §2.2 add): store by stamp, emit when complete, purge, report.
   *
   * One add does at most one of three things besides storing: replace a message (its tuple
   * exists), complete a tuple (likewise), or open a tuple, which can overflow the queue by one
   * (the queue holds at most `queueSize` tuples between adds, and only a new tuple adds one).
   */
  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.host;
    // hostForStamped's checks in one test, what fails them out of line, and the body out of line
    // too, taking the stamp through a Float64Array (a double argument of a call that is not
    // inlined is boxed): add is then small enough for the delivery loop's inlining budget (see
    // UserSource.push), which the whole body exceeded; the loop called add with the stamp boxed.
    if (host == undefined || !this.isSlot(slot) || stamp !== stamp) {
      this.hostForStamped(slot, stamp, item); // throws, or drops the message as `no-header`
      return;
    }
    this.#incoming = stamp;
    this.#insert(host, slot, item);
  }

  /** The body of add, for the stamp in `#incoming`. */
  #insert(host: PolicyHost<T>, slot: number, item: T): void {
    const stamp = this.#incoming;
    const S = this.slots;
    const items = this.#rowItems;
    const at = this.#lowerBound(stamp);
    if (at < this.#length) {
      const row = this.#order[(this.#head + at) & (this.#rows - 1)]!;
      if (this.#rowStamp[row] === stamp) {
        const k = row * S + slot;
        const replaced = items[k]!;
        items[k] = item;
        if (replaced !== EMPTY) {
          host.drop(slot, stamp, replaced, "duplicate-stamp");
        } else if ((++this.#rowCount[row]!) === S) {
          this.#emit(host, row, at, stamp);
        }
        return;
      }
    }
    // A new tuple of `stamp`, one slot filled, at index `at` of the order. Written out here, not
    // a method: #insert's bytecode then exceeds what TurboFan inlines (460 bytes), so it stays a
    // call of its own and add, small, is inlined into the delivery loop. Under the limit, #insert
    // was inlined into different callers in different processes (see UserSource.push for the
    // budget), and the W3 pipeline took 33.1–39.3 ns across six processes, against 30.4–31.8.
    if (this.#freeCount === 0) {
      this.#grow();
    }
    const row = this.#free[--this.#freeCount]!;
    this.#rowStamp[row] = stamp;
    this.#rowCount[row] = 1;
    const order = this.#order;
    const mask = this.#rows - 1;
    const len = this.#length;
    let head = this.#head;
    // Shift the shorter side (in-order arrival shifts nothing).
    if (at < len - at) {
      head = (head - 1) & mask;
      for (let k = 0; k < at; k++) {
        order[(head + k) & mask] = order[(head + k + 1) & mask]!;
      }
      this.#head = head;
    } else {
      for (let k = len; k > at; k--) {
        order[(head + k) & mask] = order[(head + k - 1) & mask]!;
      }
    }
    order[(head + at) & mask] = row;
    this.#length = len + 1;
    items[row * S + slot] = item;
    const q = this.#queueSize;
    if (q > 0 && this.#length > q) {
      // The oldest tuple by stamp (possibly the one just opened) goes.
      const oldest = this.#order[this.#head]!;
      this.#head = (this.#head + 1) & (this.#rows - 1);
      this.#length--;
      this.#reportAndFree(host, oldest, QUEUE_OVERFLOW);
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    const base = this.#erasedCount;
    this.#eraseFront(this.#length, RESET);
    const host = this.host;
    if (reportDrops && host != undefined) {
      this.#reportErased(host, base);
    } else {
      for (let k = base; k < this.#erasedCount; k++) {
        this.#clearRow(this.#erased[k]!);
        this.#free[this.#freeCount++] = this.#erased[k]!;
      }
      this.#erasedCount = base;
    }
  }

  /** Index in the order of the first tuple whose stamp is >= `stamp` (`#length` when none). */
  #lowerBound(stamp: Stamp): number {
    const order = this.#order;
    const rowStamp = this.#rowStamp;
    const head = this.#head;
    const mask = this.#rows - 1;
    let hi = this.#length;
    // In-order arrival, the common case, lands after the newest tuple: one comparison.
    if (hi === 0 || rowStamp[order[(head + hi - 1) & mask]!]! < stamp) {
      return hi;
    }
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rowStamp[order[(head + mid) & mask]!]! < stamp) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Takes the `n` oldest tuples off the order; they wait on `#erased` to be reported. */
  #eraseFront(n: number, reason: number): void {
    const order = this.#order;
    const mask = this.#rows - 1;
    const erased = this.#erased;
    const reasons = this.#erasedReason;
    let head = this.#head;
    let top = this.#erasedCount;
    for (let k = 0; k < n; k++) {
      erased[top] = order[head]!;
      reasons[top] = reason;
      top++;
      head = (head + 1) & mask;
    }
    this.#erasedCount = top;
    this.#head = head;
    this.#length -= n;
  }

  /**
   * Emits the complete tuple at index `at` of the order (its row is `row`), after erasing it and
   * every older tuple; the older ones are reported after the emission, as ROS calls its drop
   * signal after the output signal.
   */
  #emit(host: PolicyHost<T>, row: number, at: number, stamp: Stamp): void {
    const S = this.slots;
    const items = this.#rowItems;
    const set = newItemArray<T>(S);
    for (let i = 0; i < S; i++) {
      set[i] = items[row * S + i] as T;
      items[row * S + i] = EMPTY;
    }
    const base = this.#erasedCount;
    this.#eraseFront(at, NOT_SELECTED);
    this.#head = (this.#head + 1) & (this.#rows - 1);
    this.#length--;
    this.#free[this.#freeCount++] = row;
    try {
      host.emit(set, this.readsStamps ? new Array<Stamp>(S).fill(stamp) : NO_STAMPS);
    } finally {
      this.#reportErased(host, base);
    }
  }

  /**
   * Reports the erased rows above `base`, oldest first, and frees them. Should a listener throw,
   * the rows not yet reported are freed unreported.
   */
  #reportErased(host: PolicyHost<T>, base: number): void {
    const top = this.#erasedCount;
    let k = base;
    try {
      for (; k < top; k++) {
        // Read afresh: an add made from a callback may have grown the arrays.
        this.#reportAndFree(host, this.#erased[k]!, this.#erasedReason[k]!);
      }
    } finally {
      // Row k, if its report threw, was freed by #reportAndFree; the ones after it were not reported.
      for (k++; k < top; k++) {
        this.#clearRow(this.#erased[k]!);
        this.#free[this.#freeCount++] = this.#erased[k]!;
      }
      this.#erasedCount = base;
    }
  }

  /**
   * Reports one erased tuple (each message, then the partial tuple) and frees its row, also when
   * a listener throws. The row is off the order and not free while it is reported, so adds made
   * from the listeners cannot reuse it.
   */
  #reportAndFree(host: PolicyHost<T>, row: number, reasonCode: number): void {
    let reported = false;
    try {
      this.#reportRow(host, row, reasonCode);
      reported = true;
    } finally {
      if (!reported) {
        this.#clearRow(row);
      }
      this.#free[this.#freeCount++] = row;
    }
  }

  /** Reports one erased tuple, clearing its row as it goes: each message, then the partial tuple. */
  #reportRow(host: PolicyHost<T>, row: number, reasonCode: number): void {
    const S = this.slots;
    const items = this.#rowItems;
    const stamp = this.#rowStamp[row]!;
    const reason = REASONS[reasonCode]!;
    const base = row * S;
    const onPartialDrop = reasonCode === RESET ? undefined : this.#onPartialDrop;
    let partial: (T | undefined)[] | undefined;
    if (onPartialDrop != undefined) {
      partial = new Array<T | undefined>(S);
      for (let i = 0; i < S; i++) {
        const it = items[base + i]!;
        partial[i] = it === EMPTY ? undefined : it;
      }
    }
    for (let i = 0; i < S; i++) {
      const it = items[base + i]!;
      if (it !== EMPTY) {
        items[base + i] = EMPTY;
        host.drop(i, stamp, it, reason);
      }
    }
    if (onPartialDrop != undefined) {
      onPartialDrop({ stamp, items: partial!, reason });
    }
  }

  /** Empties every slot of a row. */
  #clearRow(row: number): void {
    const S = this.slots;
    const items = this.#rowItems;
    for (let i = row * S; i < row * S + S; i++) {
      items[i] = EMPTY;
    }
  }

  /** Doubles the rows (called when none is free: every row is stored or waiting to be reported). */
  #grow(): void {
    const old = this.#rows;
    const rows = old * 2;
    const S = this.slots;
    this.#rowStamp = copyInto(new Float64Array(rows), this.#rowStamp);
    this.#rowCount = copyInto(new Int32Array(rows), this.#rowCount);
    for (let i = old * S; i < rows * S; i++) {
      this.#rowItems.push(EMPTY);
    }
    const order = new Int32Array(rows);
    for (let k = 0; k < this.#length; k++) {
      order[k] = this.#order[(this.#head + k) & (old - 1)]!;
    }
    this.#order = order;
    this.#head = 0;
    this.#erased = copyInto(new Int32Array(rows), this.#erased);
    this.#erasedReason = copyInto(new Uint8Array(rows), this.#erasedReason);
    const free = new Int32Array(rows);
    for (let r = 0; r < rows - old; r++) {
      free[r] = rows - 1 - r;
    }
    this.#free = free;
    this.#freeCount = rows - old;
    this.#rows = rows;
  }
}

/** `to` with `from` copied to its start (`to` is at least as long). */
function copyInto<A extends Float64Array | Int32Array | Uint8Array>(to: A, from: A): A {
  to.set(from);
  return to;
}
