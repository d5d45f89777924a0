import type { EngineInput } from "./engineTypes";

/** Batches a whole-recording analysis keeps unacknowledged at once. */
export const INGEST_DEPTH = 3;

/**
 * Keeps up to `depth` ingest batches in flight to the engine, so the engine never idles while the
 * page clones and posts the next batch or is busy with the host: the page prepares batch n + 1
 * while the engine runs batch n. Batches reach the engine in the order pushed; memory stays
 * bounded at `depth` batches. `ingest` is the engine's acknowledged ingest (EngineClient.ingest,
 * which never rejects).
 */
export class IngestWindow {
  readonly #ingest: (events: EngineInput[]) => Promise<void>;
  readonly #depth: number;
  readonly #pending: Promise<void>[] = [];

  public constructor(ingest: (events: EngineInput[]) => Promise<void>, depth = INGEST_DEPTH) {
    this.#ingest = ingest;
    this.#depth = Math.max(1, depth);
  }

  /** Sends a batch; resolves once fewer than `depth` batches are unacknowledged. */
  public async push(events: EngineInput[]): Promise<void> {
    this.#pending.push(this.#ingest(events));
    while (this.#pending.length >= this.#depth) {
      await this.#pending.shift();
    }
  }

  /** Resolves once every batch pushed so far was acknowledged. */
  public async drain(): Promise<void> {
    while (this.#pending.length > 0) {
      await this.#pending.shift();
    }
  }
}
