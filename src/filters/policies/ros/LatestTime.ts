import type { Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { DOUBLE_SEED } from "../packedArrays";
import { heldItems, heldStamps } from "../setArrays";

/** Rate-estimator settings of {@link LatestTime} (ROS `RateConfig`). */
export interface LatestTimeRateConfig {
  /** EMA factor of the rate estimate (dimensionless, 0..1). Default 0.9. */
  alphaRate?: number;
  /** EMA factor of the rate error estimate (dimensionless, 0..1). Default 0.3. */
  alphaError?: number;
  /** A period deviating by more than `margin` × error is a step change / late (>= 0). Default 10. */
  margin?: number;
}

/** Options of {@link LatestTime} (config type `ros/latest-time`). */
export interface RosLatestTimeOptions {
  /**
   * One config shared by every slot, or one per slot (an array of length 1 is shared too).
   * Default: alphaRate 0.9, alphaError 0.3, margin 10.
   */
  rateConfig?: LatestTimeRateConfig | readonly LatestTimeRateConfig[];
  /**
   * false (default) keeps ROS's quirk: rate estimators are created in order of FIRST ARRIVAL but
   * looked up by slot index, so when slots first arrive out of index order a slot is timed by an
   * estimator created (with the config and start time) of another slot. true indexes them by slot.
   */
  fixFirstArrivalOrder?: boolean;
}

const DEFAULT_ALPHA_RATE = 0.9;
const DEFAULT_ALPHA_ERROR = 0.3;
const DEFAULT_MARGIN = 10;

/**
 * ROS LatestTime's per-topic rate estimator (`Rate`), its state; the policy's `#arrive` updates
 * it (ROS's `compute_hz`). Times are relative stamps (ns).
 */
class Rate {
  // Numeric fields initialized where declared, the doubles with a fraction (see SlotPolicy.slots
  // and DOUBLE_SEED): declared without a value, a field is tagged and every read tests it.
  public prev = DOUBLE_SEED;
  public hz = 0;
  public error = 0;
  public doHzInit = true;
  public doErrorInit = true;
  public readonly alphaRate: number = DOUBLE_SEED;
  public readonly alphaError: number = DOUBLE_SEED;
  public readonly margin: number = DOUBLE_SEED;

  public constructor(start: number, config: Required<LatestTimeRateConfig>) {
    this.prev = start;
    this.alphaRate = config.alphaRate;
    this.alphaError = config.alphaError;
    this.margin = config.margin;
  }
}

/**
 * ROS 2 message_filters `sync_policies::LatestTime` (4.5.0+, 8.0.2; reference
 * ros-message-filters.md §2.3): a zero-order hold driven by ARRIVAL time (the `arrival` argument
 * of `add`, ROS's clock `now()`), not by header stamps — so it accepts headerless messages.
 *
 * Each slot keeps its latest message. A slot's first message only starts its rate estimator.
 * Later messages update it; the tuple of latest messages is emitted when the rate was valid, the
 * slot is the pivot (the fastest topic, stable sort by rate, that is not late), and every slot
 * holds a message. Messages are re-emitted until replaced (upsampling of slower topics).
 *
 * Quirks kept by default: the first-arrival-order estimator mapping (see
 * `fixFirstArrivalOrder`); when a slot's second message arrives before as many slots as its
 * index have arrived, C++ reads past the end of its estimator vector (undefined behaviour) — the
 * port then skips the rate update (no set can be emitted then anyway: a slot is still empty).
 * Open issue ros2/message_filters#131 (may not publish for a long time) is inherent.
 *
 * Drops: a message replaced before it was ever emitted is reported `superseded`; `reset`.
 */
export class LatestTime<T> extends SlotPolicy<T> {
  readonly #configs: Required<LatestTimeRateConfig>[];
  readonly #fixOrder: boolean;
  readonly #items: (T | undefined)[];
  readonly #stamps: Float64Array;
  readonly #has: Uint8Array;
  readonly #emitted: Uint8Array;
  /** The arrival of the message being added (see add). */
  #arrival = DOUBLE_SEED;
  /** Quirk mode: in first-arrival order. Fixed mode: by slot (sparse until each slot arrives). */
  #rates: (Rate | undefined)[] = [];

  public constructor(slots: number, options: RosLatestTimeOptions = {}) {
    if (!Number.isInteger(slots) || slots < 2) {
      throw new RangeError(`ros/latest-time: slots must be an integer >= 2, got ${slots}`);
    }
    super("ros/latest-time", slots, "accept");
    this.#fixOrder = options.fixFirstArrivalOrder ?? false;
    const rc = options.rateConfig;
    const list: readonly LatestTimeRateConfig[] = rc == undefined ? [] : Array.isArray(rc) ? rc : [rc as LatestTimeRateConfig];
    if (list.length !== 0 && list.length !== 1 && list.length !== slots) {
      throw new RangeError(
        `ros/latest-time: rateConfig has ${list.length} entries; give one shared config or one per slot (${slots})`,
      );
    }
    const full = list.map((c, i) => normalize(c, list.length === 1 ? "rateConfig" : `rateConfig[${i}]`));
    this.#configs = Array.from({ length: slots }, (_, i) => full[list.length === 1 ? 0 : i] ?? defaults());
    this.#items = new Array<T | undefined>(slots).fill(undefined);
    this.#stamps = new Float64Array(slots);
    this.#has = new Uint8Array(slots);
    this.#emitted = new Uint8Array(slots);
  }


  public override add(slot: number, stamp: Stamp, item: T, arrival: Stamp): void {
    const host = this.hostFor(slot);
    // The arrival reaches #arrive through a double field (see DOUBLE_SEED), not as an argument: a
    // double argument of a call that is not inlined is boxed, a heap allocation per message.
    this.#arrival = arrival;
    if (this.#has[slot] === 0) {
      this.#store(slot, stamp, item);
      this.#startRate(slot);
      return;
    }
    const old = this.#items[slot] as T;
    const oldStamp = this.#stamps[slot]!;
    const wasEmitted = this.#emitted[slot] === 1;
    this.#store(slot, stamp, item);
    if (!wasEmitted) {
      host.drop(slot, oldStamp, old, "superseded");
    }
    this.#arrive(host, slot);
  }

  /** A slot's first message: starts its rate estimator at `#arrival`. */
  #startRate(slot: number): void {
    const rate = new Rate(this.#arrival, this.#configs[slot]!);
    if (this.#fixOrder) {
      this.#rates[slot] = rate;
    } else {
      this.#rates.push(rate);
    }
  }

  /**
   * A later message of `slot`, arrived at `#arrival`: the slot's rate update (ROS's
   * `compute_hz`), then, when the rate was valid, the tuple of held messages is emitted if `slot`
   * is the pivot and every slot holds a message.
   *
   * One method, not calls to a Rate method and a pivot test: its bytecode is then larger than
   * TurboFan inlines (460 bytes), so it stays a call of its own, and add, without it, is small
   * enough to be inlined into the delivery loop (see UserSource.push), which then passes the
   * stamps unboxed (W3 pipeline 37.4 → 32.3 ns). Inlined into add, it made add too large for that.
   */
  #arrive(host: PolicyHost<T>, slot: number): void {
    const rates = this.#rates;
    const rate = rates[slot];
    if (rate == undefined) {
      return; // C++ reads past its vector here; a slot is still empty, so nothing is emitted
    }
    const now = this.#arrival;
    // The rate update. rclcpp Duration::seconds(): nanoseconds / 1e9 as a double.
    const period = (now - rate.prev) / 1e9;
    if (!(period > 0)) {
      return; // time did not advance: no update, no set
    }
    for (;;) {
      if (rate.doHzInit) {
        rate.hz = 1.0 / period;
        rate.doHzInit = false;
        break;
      }
      if (rate.doErrorInit) {
        rate.error = Math.abs(rate.hz - 1.0 / period);
        rate.doErrorInit = false;
      } else {
        if (Math.abs(rate.hz - 1.0 / period) > rate.margin * rate.error) {
          // Step change in rate: start the estimate again from this period.
          rate.doHzInit = true;
          rate.doErrorInit = true;
          continue;
        }
        rate.error =
          rate.alphaError * Math.abs(rate.hz - 1.0 / period) + (1.0 - rate.alphaError) * rate.error;
      }
      rate.hz = rate.alphaRate / period + (1.0 - rate.alphaRate) * rate.hz;
      break;
    }
    rate.prev = now;
    // The pivot test. ROS sorts the estimators by rate (stable, fastest first), takes the first
    // one that has a rate and is not late, and compares its index with the slot: that is `slot`
    // exactly when the estimator at index `slot` qualifies and none sorting before it does.
    // Decided so, it needs no sort and no look at the estimators sorting after it (a fifth of a
    // W3 LatestTime pipeline).
    if (!qualifies(rate, now)) {
      return;
    }
    for (let k = 0; k < rates.length; k++) {
      const r = rates[k];
      if (r == undefined || k === slot) {
        continue;
      }
      const sortsBefore = r.hz > rate.hz || (r.hz === rate.hz && k < slot);
      if (sortsBefore && qualifies(r, now)) {
        return;
      }
    }
    for (let i = 0; i < this.slots; i++) {
      if (this.#has[i] === 0) {
        return; // a slot is still empty
      }
    }
    const emitted = this.#emitted;
    for (let i = 0; i < emitted.length; i++) {
      emitted[i] = 1; // a loop: for a few slots, cheaper than the fill builtin
    }
    this.#emitHeld(host);
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      if (reportDrops && this.#has[i] === 1 && this.#emitted[i] === 0) {
        this.host?.drop(i, this.#stamps[i]!, this.#items[i] as T, "reset");
      }
      this.#items[i] = undefined;
    }
    this.#has.fill(0);
    this.#emitted.fill(0);
    this.#rates = [];
  }

  /** Emits the held messages (no stamps array for a host that does not read it). */
  #emitHeld(host: PolicyHost<T>): void {
    host.emit(heldItems(this.#items), this.readsStamps ? heldStamps(this.#stamps) : NO_STAMPS);
  }

  #store(slot: number, stamp: Stamp, item: T): void {
    this.#items[slot] = item;
    this.#stamps[slot] = stamp;
    this.#has[slot] = 1;
    this.#emitted[slot] = 0;
  }
}

/** Whether the pivot search takes `r` at `now`: it has a rate and is not late. */
function qualifies(r: Rate, now: number): boolean {
  // An estimator just updated at `now` has a period of exactly 0 (accepted with a rate): no
  // division for it.
  if (now === r.prev) {
    return r.hz > 0;
  }
  const period = (now - r.prev) / 1e9;
  if (!r.doErrorInit && r.hz - 1.0 / period > r.margin * r.error) {
    return false; // late
  }
  return r.hz > 0;
}

function defaults(): Required<LatestTimeRateConfig> {
  return { alphaRate: DEFAULT_ALPHA_RATE, alphaError: DEFAULT_ALPHA_ERROR, margin: DEFAULT_MARGIN };
}

function normalize(c: LatestTimeRateConfig, what: string): Required<LatestTimeRateConfig> {
  const out = {
    alphaRate: c.alphaRate ?? DEFAULT_ALPHA_RATE,
    alphaError: c.alphaError ?? DEFAULT_ALPHA_ERROR,
    margin: c.margin ?? DEFAULT_MARGIN,
  };
  for (const key of ["alphaRate", "alphaError"] as const) {
    if (!(out[key] >= 0 && out[key] <= 1)) {
      throw new RangeError(`ros/latest-time: ${what}.${key} must be a number in [0, 1], got ${out[key]}`);
    }
  }
  if (!(out.margin >= 0) || !Number.isFinite(out.margin)) {
    throw new RangeError(`ros/latest-time: ${what}.margin must be a finite number >= 0, got ${out.margin}`);
  }
  return out;
}
