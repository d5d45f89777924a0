/**
 * A link between two filters (or a filter and a drop listener), as `connectToSink`,
 * `connectToSource` and `onDrop` return it. Disconnecting is idempotent and takes effect
 * immediately, also for a `send` that is in progress: a sink disconnected while data is being
 * delivered does not receive that data if it had not been reached yet.
 *
 * ```ts
 * const c = source.connectToSink(sink);
 * c.connected; // true
 * c.disconnect();
 * c.connected; // false
 * ```
 */
export class Connection {
  #release: (() => void) | undefined;

  /** `release` is called once, by the first `disconnect()`. */
  public constructor(release: () => void) {
    this.#release = release;
  }

  /** Whether the link still exists. */
  public get connected(): boolean {
    return this.#release != undefined;
  }

  /** Sever the link; does nothing if it is already severed. Never throws. */
  public disconnect(): void {
    const release = this.#release;
    if (release != undefined) {
      this.#release = undefined;
      release();
    }
  }
}
