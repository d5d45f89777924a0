import type { Immutable, MessageEvent } from "@foxglove/extension";

import { IngestWindow, INGEST_DEPTH } from "./IngestWindow";
import { toEngineInput } from "./engineInput";
import type { EngineInput } from "./engineTypes";
import { MERGE_BATCH } from "./rangeAnalysis";

/** What PreloadIngest drives. */
export interface PreloadSink {
  /** The engine's acknowledged ingest (resolves once the engine processed the batch). */
  ingest(events: EngineInput[]): Promise<void>;
  /** Forgets everything sent so far (engine and views); resolves once no earlier result can arrive. */
  restart(): Promise<void>;
}

/**
 * The whole-recording analysis over a host's preloaded `allFrames` (hosts without a range
 * subscription). The host rebuilds `allFrames` as it loads blocks, usually growing at the end:
 * the messages of input topics are sent to the engine as they arrive, so the engine runs while
 * the host is still loading. What the engine gets always equals one pass over the final
 * `allFrames` in its order: each new array is checked to still start with the messages already
 * sent (the same message objects in the same places; hosts keep a loaded block's objects). When
 * it does not (a block loaded out of order, a topic added to loaded blocks, blocks evicted), the
 * sink restarts and nothing more is sent until `finish`, which sends the final array whole.
 * Batches of MERGE_BATCH (smaller only for the rest at `finish`), at most INGEST_DEPTH
 * unacknowledged.
 */
export class PreloadIngest {
  readonly #sink: PreloadSink;
  readonly #topics: ReadonlySet<string>;
  readonly #window: IngestWindow;
  readonly #signal: AbortSignal;
  /** The newest allFrames from the host. */
  #latest: readonly Immutable<MessageEvent>[] = [];
  /** The array the sent messages were taken from, and how far into it they reach. */
  #base: readonly Immutable<MessageEvent>[] = [];
  #sentUpTo = 0;
  #seq = 0;
  /** Set after a mismatch: wait for the final array. */
  #deferred = false;
  /** Set by finish: later arrays are ignored (the analysis covers the one finish found). */
  #finishing = false;
  #pump: Promise<void> | undefined;
  /** Times the sink was restarted (what was sent did not match a newer allFrames). */
  public restarts = 0;

  public constructor(sink: PreloadSink, topics: ReadonlySet<string>, signal: AbortSignal, depth = INGEST_DEPTH) {
    this.#sink = sink;
    this.#topics = topics;
    this.#signal = signal;
    this.#window = new IngestWindow(async (events) => {
      await sink.ingest(events);
    }, depth);
  }

  /** Messages of input topics sent so far. */
  public get sent(): number {
    return this.#seq;
  }

  /** The host's newest allFrames; sends what it adds (never blocks the caller). */
  public update(frames: readonly Immutable<MessageEvent>[]): void {
    if (this.#finishing) {
      return;
    }
    this.#latest = frames;
    if (!this.#deferred) {
      this.#pump ??= this.#send().finally(() => {
        this.#pump = undefined;
      });
    }
  }

  /**
   * The host is done loading: sends the rest of the newest allFrames (all of it again after a
   * restart) and resolves with the number of messages sent once the engine acknowledged them.
   * After an abort, stops sending and resolves with what was sent.
   */
  public async finish(): Promise<number> {
    this.#finishing = true;
    this.#deferred = false;
    while (this.#pump) {
      await this.#pump;
    }
    await this.#send();
    await this.#window.drain();
    return this.#seq;
  }

  /** Whether the sent messages are still the start of `frames`. */
  #prefixHolds(frames: readonly Immutable<MessageEvent>[]): boolean {
    if (frames === this.#base) {
      return true;
    }
    if (frames.length < this.#sentUpTo) {
      return false;
    }
    for (let i = 0; i < this.#sentUpTo; i++) {
      if (frames[i] !== this.#base[i]) {
        return false;
      }
    }
    return true;
  }

  async #send(): Promise<void> {
    while (!this.#signal.aborted && !this.#deferred) {
      const frames = this.#latest;
      if (!this.#prefixHolds(frames)) {
        await this.#window.drain();
        await this.#sink.restart();
        this.restarts++;
        this.#base = [];
        this.#sentUpTo = 0;
        this.#seq = 0;
        // While the host still loads, wait for its final array; once finishing, send that whole.
        this.#deferred = !this.#finishing;
        continue;
      }
      this.#base = frames;
      // While the host loads, whole batches only: each batch costs an ack, a delta and a render.
      if (this.#sentUpTo >= frames.length || (!this.#finishing && frames.length - this.#sentUpTo < MERGE_BATCH)) {
        return;
      }
      const end = Math.min(frames.length, this.#sentUpTo + MERGE_BATCH);
      const events: EngineInput[] = [];
      for (let i = this.#sentUpTo; i < end; i++) {
        const m = frames[i]!;
        if (this.#topics.has(m.topic)) {
          events.push(toEngineInput(this.#seq++, m));
        }
      }
      this.#sentUpTo = end;
      if (events.length > 0) {
        await this.#window.push(events);
      }
    }
  }
}
