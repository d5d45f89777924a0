import type { Duration, Stamp } from "../../../time";
import type { PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { checkDuration, checkQueueSize, checkSlotCount, unboundHost } from "./checks";

/** The two limits fkie's ExactTime and ApproximateTime share. */
export interface QueueAgeOptions {
  /** Max messages per slot (0, the default, = unlimited); what it counts is the policy's. */
  maxQueueSize?: number;
  /** Max age in ns against the incoming stamp; default 1 s; `null` = unlimited. */
  maxAge?: Duration | null;
}

/**
 * The base of fkie's ExactTime and ApproximateTime: their `maxQueueSize` and `maxAge` with fkie's
 * setters, side effects included: `setMaxAge` also sets `maxQueueSize` to 0 and
 * `setMaxQueueSize(n)` without a second argument sets `maxAge` to `null`. Constructor options are
 * applied together, without those effects. The host throws until `bind`.
 */
export abstract class QueueAgePolicy<T> extends SlotPolicy<T, PolicyHost<T>> {
  /** Max messages per slot (0 = unlimited), read on the hot path. */
  protected queueLimit = 0;
  /** Max age in ns, or null (unlimited), read on the hot path. */
  protected ageLimit: Duration | null;

  protected constructor(type: string, slots: number, options: QueueAgeOptions) {
    checkSlotCount(slots, type);
    super(type, slots, "refuse", unboundHost(type));
    this.queueLimit = checkQueueSize(options.maxQueueSize ?? 0, "maxQueueSize");
    this.ageLimit = checkDuration(
      // null (unlimited) and undefined (the 1 s default) differ here.
      // eslint-disable-next-line @foxglove/strict-equality
      options.maxAge === undefined ? 1_000_000_000 : options.maxAge,
      "maxAge",
    );
  }

  /** Max messages per slot (0 = unlimited). */
  public get maxQueueSize(): number {
    return this.queueLimit;
  }
  /** Max age in ns, or null (unlimited). */
  public get maxAge(): Duration | null {
    return this.ageLimit;
  }

  /** Sets the max age (ns, or null) and, as fkie's `set_max_age` does, `maxQueueSize = 0`. */
  public setMaxAge(maxAge: Duration | null): this {
    this.ageLimit = checkDuration(maxAge, "maxAge");
    this.queueLimit = 0;
    return this;
  }

  /**
   * Sets the max queue size (0 = unlimited) and the max age, which fkie's `set_max_queue_size`
   * resets to `null` (unlimited) when not given.
   */
  public setMaxQueueSize(maxQueueSize: number, maxAge: Duration | null = null): this {
    this.queueLimit = checkQueueSize(maxQueueSize, "maxQueueSize");
    this.ageLimit = checkDuration(maxAge, "maxAge");
    return this;
  }

  /** See {@link SlotPolicy.add}. */
  public abstract override add(slot: number, stamp: Stamp, item: T, arrival?: Stamp): void;
}
