import type { Stamp } from "../../../time";

/**
 * fuse_core::ThrottledCallback's decision (reference/fuse.md §3 "Throttling"), on the receive-time
 * clock: the first message is kept; later ones are kept when `now − last > period`, and `last`
 * then advances by exactly `period` (so the kept rate never drifts). With period 0 every later
 * message whose receive time differs from the first kept one passes (fuse's arithmetic; `last`
 * never moves).
 */
export class Throttle {
  readonly #period: number = 0;
  #last: Stamp | undefined;

  /** `period` in ns (0 = effectively off). */
  public constructor(period: number) {
    this.#period = period;
  }

  /** True to keep the message received at `now`. */
  public keep(now: Stamp): boolean {
    if (this.#last == undefined) {
      this.#last = now;
      return true;
    }
    if (now - this.#last > this.#period) {
      this.#last += this.#period;
      return true;
    }
    return false;
  }

  /** Forgets the last kept time (a sensor restart). Returns this. */
  public reset(): this {
    this.#last = undefined;
    return this;
  }
}
