import type { Immutable, MessageEvent, PanelExtensionContext, Time } from "@foxglove/extension";
import { useCallback, useEffect, useMemo, useRef, useState, type MutableRefObject } from "react";

import { EngineClient } from "../engine/EngineClient";
import { IngestWindow } from "../engine/IngestWindow";
import { PreloadIngest } from "../engine/PreloadIngest";
import type { Pose2D } from "../engine/engineTypes";
import { preloadCoverage } from "../engine/preloadCoverage";
import { analyzeRange, findRangeSubscribe } from "../engine/rangeAnalysis";
import { recordingProgress } from "../engine/recordingProgress";
import { engineConfig } from "../settings/analysisKey";
import { defaultPolicy } from "../settings/policyParams";
import { FrameHandler, type FrameSink } from "../state/FrameHandler";
import type { MessageCache } from "../state/MessageCache";
import type { TuplePublisher } from "../state/Publisher";
import { ViewStore } from "../state/ViewStore";
import { inPageEnginePort, spawnEngineWorker } from "../worker/spawnEngineWorker";

/**
 * The whole-recording analysis: not run, running, finished, finished for a config since edited,
 * or ended without some inputs (the host delivered none of their messages: never "done" then).
 */
export type WholeRecording =
  | { readonly state: "idle" }
  | { readonly state: "incomplete"; readonly messages: number; readonly missing: readonly string[] }
  | { readonly state: "running"; readonly fraction: number; readonly messages: number; readonly abort: AbortController }
  | { readonly state: "done"; readonly messages: number; readonly cancelled: boolean; readonly messagesPerSec: number }
  | { readonly state: "stale"; readonly messages: number };

/** What useAnalysis needs from the panel. */
export interface AnalysisInputs {
  readonly context: PanelExtensionContext;
  /** analysisKey(config) of a valid config, undefined while the config is invalid. */
  readonly key: string | undefined;
  readonly compareType: string;
  readonly start: Time | undefined;
  readonly end: Time | undefined;
  readonly onHostChanges: FrameSink["update"];
  readonly publisher: MutableRefObject<TuplePublisher | undefined>;
  readonly cache: MessageCache;
}

/** What useAnalysis gives the panel. */
export interface Analysis {
  readonly store: ViewStore;
  /** The store's version at the last React update. */
  readonly version: number;
  readonly engine: EngineClient;
  readonly handler: FrameHandler;
  readonly whole: WholeRecording;
  /** Starts the whole-recording analysis (when `canAnalyze`). */
  readonly run: () => void;
  readonly canAnalyze: boolean;
  /** Leaves the whole-recording results and follows playback again. */
  readonly backToPlayback: () => void;
  readonly engineError: string | undefined;
  readonly inputTopics: readonly string[];
}

/** How long allFrames may stop growing before the analysis ends (every input present). */
const SETTLE_MS = 2000;

/**
 * How long to wait for the host to load an input absent from allFrames (one added since the last
 * analysis: the host loads its blocks anew) before ending the analysis as "incomplete".
 */
const NOT_LOADED_MS = 20_000;

/** The header's line for an analysis that ended without some inputs. */
function notLoadedText(missing: readonly string[]): string {
  return `whole recording not loaded yet: ${missing.join(", ")} (the host delivered none of ${missing.length === 1 ? "its" : "their"} messages; the results leave ${missing.length === 1 ? "it" : "them"} out; re-run the analysis)`;
}

/**
 * The analysis side of the panel: the engine (worker or in-page), the store the views read, the
 * frame handler fed by `onRender`, and the whole-recording analysis. Only a change of `key` (the
 * analysis parts of the config) resets results; after a whole-recording analysis such a change
 * marks it `stale` so the panel offers to re-run it. A comparison policy change keeps results.
 */
export function useAnalysis(inputs: AnalysisInputs): Analysis {
  const { context, key, compareType, start, end, onHostChanges, publisher, cache } = inputs;
  const [version, setVersion] = useState(0);
  const [engineError, setEngineError] = useState<string | undefined>();
  const [whole, setWhole] = useState<WholeRecording>({ state: "idle" });
  const store = useMemo(() => new ViewStore(), []);
  const wholeRef = useRef(false);
  const preloadRef = useRef<((frames: readonly Immutable<MessageEvent>[]) => void) | undefined>(undefined);
  const rafRef = useRef<number | undefined>(undefined);

  const bump = useCallback(() => {
    rafRef.current ??= requestAnimationFrame(() => {
      rafRef.current = undefined;
      setVersion(store.version);
    });
  }, [store]);

  const engine = useMemo(
    () =>
      new EngineClient(
        {
          onDelta: (delta) => {
            store.apply(delta);
            const pub = publisher.current;
            if (pub && !wholeRef.current) {
              pub.publishTuples(delta.tuples, cache);
              if (delta.fusedPoses.length > 0 && store.baseSec != undefined) {
                const recent: Pose2D[] = [];
                for (let i = Math.max(0, store.fusedPoses.size - 200); i < store.fusedPoses.size; i++) {
                  recent.push(store.fusedPoses.at(i)!);
                }
                pub.publishFusedPoses(recent, store.baseSec);
              }
              pub.publishTransactions(delta.transactions);
            }
            setEngineError(undefined);
            bump();
          },
          onError: (message) => {
            setEngineError(message);
          },
          onDiagnosis: (diagnosis) => {
            store.diagnosis = diagnosis;
            store.version++;
            bump();
          },
          onExplanation: (slot, stamp, explanation) => {
            store.explanation = { slot, stamp, explanation };
            store.version++;
            bump();
          },
          // The header reads engine.fallbackReason; re-render to show it.
          onFallback: () => {
            bump();
            setVersion((v) => v + 1);
          },
        },
        { worker: spawnEngineWorker(), inPage: inPageEnginePort },
      ),
    [store, cache, bump, publisher],
  );
  useEffect(
    () => () => {
      engine.dispose();
    },
    [engine],
  );

  const handler = useMemo(
    () =>
      new FrameHandler({
        post: (events) => {
          if (!wholeRef.current) {
            engine.post(events);
          }
        },
        // Recordings (seekable) wait for the analysis; live sources never do (frames beyond the
        // engine's backlog are skipped and counted instead).
        backlog: async () => (context.seekPlayback != undefined && !wholeRef.current ? await engine.backlog() : undefined),
        reset: () => {
          if (!wholeRef.current) {
            engine.reset();
            store.clear();
            bump();
          }
        },
        update: (changes) => {
          if (changes.allFrames && preloadRef.current) {
            preloadRef.current(changes.allFrames);
          }
          onHostChanges(changes);
        },
      }),
    [engine, store, bump, context, onHostChanges],
  );

  const inputTopics = useMemo(() => (key == undefined ? [] : (engineConfig(key).inputs as { topic: string }[]).map((i) => i.topic)), [key]);

  // Subscriptions and the engine follow the analysis part of the config only.
  const compareRef = useRef(compareType);
  compareRef.current = compareType;
  useEffect(() => {
    if (key == undefined) {
      context.unsubscribeAll();
      return;
    }
    wholeRef.current = false;
    preloadRef.current = undefined;
    setWhole((w) => {
      if (w.state === "running") {
        w.abort.abort();
      }
      return w.state === "done" || w.state === "running" ? { state: "stale", messages: w.messages } : w.state === "incomplete" ? { state: "idle" } : w;
    });
    context.subscribe(inputTopics.map((topic) => ({ topic })));
    handler.setInputs(inputTopics);
    store.clear();
    engine.configure(engineConfig(key), defaultPolicy(compareRef.current));
    bump();
  }, [key, context, handler, engine, store, inputTopics, bump]);

  const firstCompare = useRef(true);
  useEffect(() => {
    if (firstCompare.current) {
      firstCompare.current = false;
      return;
    }
    engine.setCompare(defaultPolicy(compareType));
  }, [engine, compareType]);

  const rangeSubscribe = findRangeSubscribe(context);
  // Recordings on hosts without a range subscription: the deprecated preload/allFrames.
  const preloadFallback = rangeSubscribe == undefined && context.seekPlayback != undefined;
  const canAnalyze = key != undefined && (rangeSubscribe != undefined || preloadFallback);

  const progress = useCallback(
    (receive: Time | undefined): number => recordingProgress(receive, start, end),
    [start, end],
  );

  const runPreload = useCallback(
    (abort: AbortController, t0: number) => {
      const ingest = new PreloadIngest(
        {
          // Progress is how far the engine got (it runs while the host still loads).
          ingest: async (events) => {
            await engine.ingest(events);
            const last = events[events.length - 1]!;
            setWhole((w) => (w.state === "running" && w.abort === abort ? { state: "running", fraction: progress(last.receiveTime), messages: last.seq + 1, abort } : w));
          },
          // A block the host loaded out of order: start over, and only once no delta of the
          // discarded messages can still arrive (the flush's ack follows them) clear the views.
          restart: async () => {
            engine.reset();
            await engine.flush();
            store.clear();
            bump();
          },
        },
        new Set(inputTopics),
        abort.signal,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      let finished = false;
      let latest: readonly Immutable<MessageEvent>[] = [];
      /** allFrames' length when the timer was last set: a host re-sends the same frames on every render. */
      let loaded = -1;
      const finish = async (): Promise<void> => {
        if (finished) {
          return;
        }
        finished = true;
        preloadRef.current = undefined;
        context.subscribe(inputTopics.map((topic) => ({ topic })));
        const seq = await ingest.finish();
        await engine.finish();
        const { missing } = preloadCoverage(latest, inputTopics, { start, end });
        if (!abort.signal.aborted && missing.length > 0) {
          setWhole((w) => (w.state === "stale" ? w : { state: "incomplete", messages: seq, missing }));
        } else if (!abort.signal.aborted || seq > 0) {
          setWhole((w) => (w.state === "stale" ? w : { state: "done", messages: seq, cancelled: abort.signal.aborted, messagesPerSec: seq / Math.max(1e-3, (performance.now() - t0) / 1000) }));
        }
      };
      abort.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        void finish();
      });
      preloadRef.current = (frames) => {
        latest = frames;
        ingest.update(frames);
        // allFrames grows as the host loads blocks: analyze once every input reaches the end, or
        // allFrames stops growing; an input it lacks (added since the host loaded its blocks) is
        // waited for longer, and if it never comes the analysis says so instead of "done".
        // Only growth restarts the wait: the same frames again (each render, playing or not) must
        // not postpone the end forever when an input never comes.
        const coverage = preloadCoverage(frames, inputTopics, { start, end });
        if (frames.length === loaded && !coverage.complete) {
          return;
        }
        loaded = frames.length;
        clearTimeout(timer);
        timer = setTimeout(() => void finish(), coverage.complete ? 0 : coverage.missing.length > 0 ? NOT_LOADED_MS : SETTLE_MS);
      };
      // A host that never sends allFrames for these topics must not leave the analysis running.
      timer = setTimeout(() => void finish(), NOT_LOADED_MS);
      context.subscribe(inputTopics.map((topic) => ({ topic, preload: true })));
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the documented fallback when subscribeMessageRange is missing
      context.watch("allFrames");
    },
    [engine, store, bump, inputTopics, context, progress, start, end],
  );

  const run = useCallback(() => {
    if (!canAnalyze) {
      return;
    }
    const abort = new AbortController();
    const t0 = performance.now();
    wholeRef.current = true;
    engine.reset();
    store.clear();
    bump();
    setWhole({ state: "running", fraction: 0, messages: 0, abort });
    if (!rangeSubscribe) {
      runPreload(abort, t0);
      return;
    }
    void (async () => {
      let messages = 0;
      const inFlight = new IngestWindow(async (events) => {
        await engine.ingest(events);
      });
      try {
        messages = await analyzeRange(
          rangeSubscribe,
          inputTopics,
          async (events) => {
            await inFlight.push(events);
          },
          {
            start,
            end,
            signal: abort.signal,
            onProgress: (fraction, n) => {
              messages = n;
              setWhole({ state: "running", fraction, messages: n, abort });
            },
          },
        );
        await inFlight.drain();
        await engine.finish();
      } catch (err) {
        setEngineError(`analysis failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      setWhole((w) =>
        w.state === "stale"
          ? w
          : { state: "done", messages, cancelled: abort.signal.aborted, messagesPerSec: messages / Math.max(1e-3, (performance.now() - t0) / 1000) },
      );
    })();
  }, [canAnalyze, rangeSubscribe, runPreload, engine, store, inputTopics, start, end, bump]);

  const backToPlayback = useCallback(() => {
    wholeRef.current = false;
    engine.reset();
    store.clear();
    setWhole({ state: "idle" });
    bump();
  }, [engine, store, bump]);

  const notice = whole.state === "incomplete" ? notLoadedText(whole.missing) : undefined;
  return { store, version, engine, handler, whole, run, canAnalyze, backToPlayback, engineError: engineError ?? notice, inputTopics };
}
