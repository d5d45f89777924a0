import type { Immutable, MessageEvent, RenderState, Topic } from "@foxglove/extension";

import type { MessageCache } from "./MessageCache";
import { toEngineInput } from "../engine/engineInput";
import type { EngineInput } from "../engine/engineTypes";

/** What the frame handler drives. */
export interface FrameSink {
  /** Sends a live frame's input messages to the engine (must not block). */
  post(events: EngineInput[]): void;
  /** Forgets everything accumulated (a seek happened). */
  reset(): void;
  /**
   * When the engine is behind: a promise to wait for before calling `done` (backpressure on a
   * recording's playback); undefined to call `done` at once.
   */
  backlog?(): Promise<void> | undefined;
  /** Topics, colour scheme and playback times changed (only called with what changed). */
  update(changes: FrameChanges): void;
}

/** What changed in a render state, as `FrameSink.update` receives it. */
export interface FrameChanges {
  topics?: readonly Topic[];
  colorScheme?: "dark" | "light";
  currentTime?: { sec: number; nsec: number };
  startTime?: { sec: number; nsec: number };
  endTime?: { sec: number; nsec: number };
  allFrames?: readonly Immutable<MessageEvent>[];
  /** The app settings the panel subscribed to (timeFormat, timezone) as strings. */
  appSettings?: ReadonlyMap<string, string>;
}

/**
 * Render-state fields handed to `FrameSink.update` as they are whenever the host sets them. The
 * start and end times are watched on their own: a whole-recording analysis needs the range
 * before playback starts.
 */
const PASSED_ON = ["topics", "colorScheme", "currentTime", "startTime", "endTime"] as const satisfies readonly (keyof RenderState & keyof FrameChanges)[];

/**
 * The panel's `onRender` logic, kept free of React so it can be tested and timed: resets on
 * `didSeek` (before handling the frame that follows the seek), hands the new messages of input
 * topics to the engine with sequence numbers, remembers them for republishing when a cache is
 * given, reports other changes, and ALWAYS calls `done` exactly once (even when something
 * throws). `done` is immediate unless the sink reports a backlog (a recording whose analysis is
 * behind): then it follows when the backlog clears, at most BACKLOG_WAIT_MS later, so the host's
 * playback waits for the analysis instead of the panel dropping recorded messages.
 */
/** Longest wait for a backlog before `done` is called anyway (the hosts give up after 5 s). */
export const BACKLOG_WAIT_MS = 4000;

export class FrameHandler {
  #seq = 0;
  #inputs = new Set<string>();
  #cache: MessageCache | undefined;
  readonly #sink: FrameSink;
  /** Renders handled and the slowest one (ms), for diagnostics and the performance test. */
  public renders = 0;
  public maxRenderMs = 0;

  public constructor(sink: FrameSink) {
    this.#sink = sink;
  }

  /** The topics whose messages go to the engine. */
  public setInputs(topics: readonly string[]): this {
    this.#inputs = new Set(topics);
    return this;
  }

  /** Where to remember messages for republishing (undefined = do not keep messages). */
  public setCache(cache: MessageCache | undefined): this {
    this.#cache = cache;
    return this;
  }

  /** Handles one render state, then calls `done`. Returns any error (already contained). */
  public handle(state: Immutable<RenderState>, done: () => void): Error | undefined {
    const t0 = performance.now();
    try {
      if (state.didSeek === true) {
        this.#cache?.clear();
        this.#sink.reset();
      }
      const changes: FrameChanges = {};
      let changed = false;
      for (const key of PASSED_ON) {
        if (state[key] != undefined) {
          Object.assign(changes, { [key]: state[key] });
          changed = true;
        }
      }
      if (state.appSettings && state.appSettings.size > 0) {
        const settings = new Map<string, string>();
        for (const [k, v] of state.appSettings) {
          if (typeof v === "string") {
            settings.set(k, v);
          }
        }
        changes.appSettings = settings;
        changed = true;
      }
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- fallback for hosts without subscribeMessageRange
      if (state.allFrames) {
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- same
        changes.allFrames = state.allFrames;
        changed = true;
      }
      if (changed) {
        this.#sink.update(changes);
      }
      const frame = state.currentFrame;
      if (frame && frame.length > 0) {
        const events: EngineInput[] = [];
        for (const m of frame) {
          if (!this.#inputs.has(m.topic)) {
            continue;
          }
          const seq = this.#seq++;
          this.#cache?.put(seq, m);
          events.push(toEngineInput(seq, m));
        }
        this.#sink.post(events);
      }
      return undefined;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    } finally {
      const ms = performance.now() - t0;
      this.renders++;
      this.maxRenderMs = Math.max(this.maxRenderMs, ms);
      let wait: Promise<void> | undefined;
      try {
        wait = this.#sink.backlog?.();
      } catch {
        wait = undefined;
      }
      if (wait) {
        let called = false;
        const once = (): void => {
          if (!called) {
            called = true;
            done();
          }
        };
        const timer = setTimeout(once, BACKLOG_WAIT_MS);
        void wait.then(() => {
          clearTimeout(timer);
          once();
        });
      } else {
        done();
      }
    }
  }
}
