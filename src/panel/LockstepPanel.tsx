import type { Immutable, MessageEvent, PanelExtensionContext, SettingsTreeAction, Topic } from "@foxglove/extension";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactElement } from "react";
import { createRoot } from "react-dom/client";

import { ConfigError, type ConfigIssue } from "../pipeline/ConfigError";
import { parseConfig } from "../pipeline/parseConfig";
import { EngineClient } from "./engine/EngineClient";
import type { Pose2D } from "./engine/engineTypes";
import { analyzeRange, findRangeSubscribe, MERGE_BATCH } from "./engine/rangeAnalysis";
import { slimMessage } from "./engine/slimMessage";
import { configFromState, publishNamespace, type LockstepConfig } from "./settings/panelConfig";
import { defaultPolicy } from "./settings/policyParams";
import { PRESETS } from "./settings/presets";
import { applySettingsAction } from "./settings/settingsActions";
import { buildSettingsNodes } from "./settings/settingsTree";
import { FrameHandler } from "./state/FrameHandler";
import { MessageCache } from "./state/MessageCache";
import { publishUnavailableReason, TuplePublisher } from "./state/Publisher";
import { ViewStore } from "./state/ViewStore";
import { CompareView } from "./views/CompareView";
import { DropsView } from "./views/DropsView";
import { StatsView } from "./views/StatsView";
import { Timeline } from "./views/Timeline";
import { TrajectoryView } from "./views/TrajectoryView";
import { TransactionsView } from "./views/TransactionsView";
import { TuplesTable } from "./views/TuplesTable";
import { themeFor } from "./views/theme";
import { inPageEnginePort, spawnEngineWorker } from "./worker/spawnEngineWorker";

const TABS = ["tuples", "timeline", "drops", "stats", "transactions", "trajectory", "compare"] as const;
type Tab = (typeof TABS)[number];

type Analysis =
  | { state: "idle" }
  | { state: "running"; fraction: number; messages: number; abort: AbortController }
  | { state: "done"; messages: number; cancelled: boolean };

/** Validation issues of a config (empty when valid). Never throws. */
export function configIssues(config: LockstepConfig): ConfigIssue[] {
  try {
    parseConfig(config);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) {
      return [...err.issues];
    }
    return [{ path: "/", message: err instanceof Error ? err.message : String(err) }];
  }
}

function LockstepPanel({ context }: { context: PanelExtensionContext }): ReactElement {
  const [config, setConfig] = useState<LockstepConfig>(() => configFromState(context.initialState));
  const [topics, setTopics] = useState<readonly Topic[] | undefined>();
  const [scheme, setScheme] = useState<"dark" | "light" | undefined>();
  const [range, setRange] = useState<{ start?: { sec: number; nsec: number }; end?: { sec: number; nsec: number } }>({});
  const [engineError, setEngineError] = useState<string | undefined>();
  const [engineNote, setEngineNote] = useState<string | undefined>();
  const [version, setVersion] = useState(0);
  const [tab, setTab] = useState<Tab>("tuples");
  const [analysis, setAnalysis] = useState<Analysis>({ state: "idle" });
  const [compareType, setCompareType] = useState("ros/approximate-time");
  const [size, setSize] = useState({ width: 800, height: 500 });
  const store = useMemo(() => new ViewStore(), []);
  const cache = useMemo(() => new MessageCache(), []);
  const publisherRef = useRef<TuplePublisher | undefined>(undefined);
  const analysisRef = useRef(false);
  /** Set while a whole-recording analysis waits for `allFrames` (hosts without range subscriptions). */
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
            const pub = publisherRef.current;
            if (pub && !analysisRef.current) {
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
          onFallback: (reason) => {
            setEngineNote(reason);
          },
        },
        { worker: spawnEngineWorker(), inPage: inPageEnginePort },
      ),
    [store, cache, bump],
  );
  useEffect(() => () => {
    engine.dispose();
  }, [engine]);

  const handler = useMemo(
    () =>
      new FrameHandler({
        post: (events) => {
          if (!analysisRef.current) {
            engine.post(events);
          }
        },
        // Recordings (seekable) wait for the analysis; live sources never do (frames beyond the
        // engine's backlog are skipped and counted instead).
        backlog: async () => (context.seekPlayback != undefined && !analysisRef.current ? await engine.backlog() : undefined),
        reset: () => {
          if (!analysisRef.current) {
            engine.reset();
            store.clear();
            bump();
          }
        },
        update: (changes) => {
          if (changes.allFrames && preloadRef.current) {
            preloadRef.current(changes.allFrames);
          }
          if (changes.topics) {
            setTopics(changes.topics);
          }
          if (changes.colorScheme) {
            setScheme(changes.colorScheme);
          }
          if (changes.startTime || changes.endTime) {
            setRange((r) =>
              r.start?.sec === changes.startTime?.sec && r.end?.sec === changes.endTime?.sec && r.end?.nsec === changes.endTime?.nsec
                ? r
                : { start: changes.startTime, end: changes.endTime },
            );
          }
        },
      }),
    [engine, store, bump, context],
  );

  useLayoutEffect(() => {
    context.onRender = (renderState, done) => {
      handler.handle(renderState, done);
    };
    context.watch("topics");
    context.watch("currentFrame");
    context.watch("didSeek");
    context.watch("colorScheme");
    context.watch("currentTime");
    context.setDefaultPanelTitle("Lockstep");
  }, [context, handler]);

  useEffect(() => {
    const el = context.panelElement;
    const obs = new ResizeObserver(() => {
      setSize({ width: el.clientWidth, height: el.clientHeight });
    });
    obs.observe(el);
    return () => {
      obs.disconnect();
    };
  }, [context]);

  const issues = useMemo(() => configIssues(config), [config]);
  const valid = issues.length === 0;
  const inputTopics = useMemo(() => config.inputs.map((i) => i.topic), [config.inputs]);
  const publishReason = publishUnavailableReason(context);
  const publishing = publishReason == undefined && config.publish?.enabled === true && valid;

  // Subscriptions and engine configuration follow the (valid) config.
  const configKey = JSON.stringify({ inputs: config.inputs, policy: config.policy, buffer: config.buffer, transforms: config.transforms, fusion: config.fusion });
  useEffect(() => {
    if (!valid) {
      context.unsubscribeAll();
      return;
    }
    context.subscribe(inputTopics.map((topic) => ({ topic })));
    handler.setInputs(inputTopics);
    store.clear();
    engine.configure(JSON.parse(configKey) as unknown, defaultPolicy(compareType));
    bump();
  }, [configKey, valid, context, handler, engine, store, inputTopics, compareType, bump]);

  // Publishing: advertise only while switched on and possible.
  const schemaKey = inputTopics.map((t) => topics?.find((x) => x.name === t)?.schemaName ?? "").join("|");
  const namespace = publishNamespace(config);
  useEffect(() => {
    if (!publishing) {
      handler.setCache(undefined);
      cache.clear();
      return;
    }
    const schemas = schemaKey.split("|");
    const pub = new TuplePublisher(
      context,
      namespace,
      inputTopics.map((topic, i) => ({ topic, schemaName: schemas[i] ?? "" })),
      { fusion: config.fusion != undefined },
    ).start();
    publisherRef.current = pub;
    handler.setCache(cache);
    return () => {
      pub.stop();
      publisherRef.current = undefined;
      handler.setCache(undefined);
    };
  }, [publishing, namespace, schemaKey, inputTopics, context, handler, cache, config.fusion]);

  // Saved state and settings editor.
  const actionHandler = useCallback(
    (action: SettingsTreeAction) => {
      setConfig((prev) =>
        applySettingsAction(prev, action, {
          presets: PRESETS,
          suggestTopic: (c) => topics?.find((t) => !c.inputs.some((i) => i.topic === t.name))?.name ?? "",
        }),
      );
    },
    [topics],
  );
  useEffect(() => {
    context.saveState(config);
    context.updatePanelSettingsEditor({
      actionHandler,
      nodes: buildSettingsNodes(config, {
        topics,
        publish: { available: publishReason == undefined, reason: publishReason },
        issues,
        presets: Object.keys(PRESETS),
      }),
    });
  }, [context, config, topics, issues, actionHandler, publishReason]);

  const rangeSubscribe = findRangeSubscribe(context);
  // Recordings on hosts without a range subscription: fall back to the deprecated preload/allFrames.
  const preloadFallback = rangeSubscribe == undefined && context.seekPlayback != undefined;
  const canAnalyze = valid && (rangeSubscribe != undefined || preloadFallback);

  const runPreloadAnalysis = useCallback(() => {
    const abort = new AbortController();
    analysisRef.current = true;
    engine.reset();
    store.clear();
    setAnalysis({ state: "running", fraction: 0, messages: 0, abort });
    const inputs = new Set(inputTopics);
    const span = range.start && range.end ? (range.end.sec - range.start.sec) * 1e9 + (range.end.nsec - range.start.nsec) : 0;
    let latest: readonly Immutable<MessageEvent>[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = async (): Promise<void> => {
      preloadRef.current = undefined;
      context.subscribe(inputTopics.map((topic) => ({ topic })));
      const events = latest.filter((m) => inputs.has(m.topic));
      let seq = 0;
      for (let i = 0; i < events.length && !abort.signal.aborted; i += MERGE_BATCH) {
        await engine.ingest(
          events.slice(i, i + MERGE_BATCH).map((m) => ({
            seq: seq++,
            topic: m.topic,
            schemaName: m.schemaName,
            receiveTime: { sec: m.receiveTime.sec, nsec: m.receiveTime.nsec },
            message: slimMessage(m.message),
          })),
        );
        setAnalysis({ state: "running", fraction: Math.min(1, (i + MERGE_BATCH) / events.length), messages: seq, abort });
      }
      await engine.flush();
      setAnalysis({ state: "done", messages: seq, cancelled: abort.signal.aborted });
    };
    abort.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      void finish();
    });
    preloadRef.current = (frames) => {
      latest = frames;
      const last = frames[frames.length - 1];
      const fraction =
        last && range.start && span > 0
          ? ((last.receiveTime.sec - range.start.sec) * 1e9 + (last.receiveTime.nsec - range.start.nsec)) / span
          : 0;
      setAnalysis({ state: "running", fraction: Math.min(1, fraction) * 0.5, messages: frames.length, abort });
      // allFrames grows as the host loads blocks: analyze once it reaches the end or stops growing.
      clearTimeout(timer);
      timer = setTimeout(() => void finish(), fraction >= 0.999 ? 0 : 2000);
    };
    context.subscribe(inputTopics.map((topic) => ({ topic, preload: true })));
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the documented fallback when subscribeMessageRange is missing
    context.watch("allFrames");
  }, [engine, store, inputTopics, range, context]);

  const runAnalysis = useCallback(() => {
    if (!canAnalyze) {
      return;
    }
    if (!rangeSubscribe) {
      runPreloadAnalysis();
      return;
    }
    const abort = new AbortController();
    analysisRef.current = true;
    engine.reset();
    store.clear();
    setAnalysis({ state: "running", fraction: 0, messages: 0, abort });
    void (async () => {
      let messages = 0;
      try {
        messages = await analyzeRange(rangeSubscribe, inputTopics, async (events) => { await engine.ingest(events); }, {
          start: range.start,
          end: range.end,
          signal: abort.signal,
          onProgress: (fraction, n) => {
            messages = n;
            setAnalysis({ state: "running", fraction, messages: n, abort });
          },
        });
        await engine.flush();
      } catch (err) {
        setEngineError(`analysis failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      setAnalysis({ state: "done", messages, cancelled: abort.signal.aborted });
    })();
  }, [canAnalyze, rangeSubscribe, runPreloadAnalysis, engine, store, inputTopics, range]);

  const backToLive = useCallback(() => {
    analysisRef.current = false;
    engine.reset();
    store.clear();
    setAnalysis({ state: "idle" });
    bump();
  }, [engine, store, bump]);

  const canSeek = context.seekPlayback != undefined;
  const baseSec = store.baseSec;
  const onSeek = useMemo(() => {
    if (!canSeek || baseSec == undefined) {
      return undefined;
    }
    return (stamp: number) => {
      const whole = Math.floor(stamp / 1e9);
      context.seekPlayback?.({ sec: baseSec + whole, nsec: Math.round(stamp - whole * 1e9) });
    };
  }, [canSeek, baseSec, context]);

  const theme = themeFor(scheme);
  const stats = store.stats;
  const viewHeight = Math.max(120, size.height - 86);
  const button = { background: theme.panel, color: theme.text, border: `1px solid ${theme.border}`, borderRadius: 4, padding: "2px 8px", cursor: "pointer" } as const;

  return (
    <div
      data-testid="lockstep-root"
      data-version={version}
      style={{ background: theme.background, color: theme.text, height: "100%", display: "flex", flexDirection: "column", fontFamily: "system-ui, sans-serif", fontSize: 13, overflow: "hidden" }}
    >
      <div style={{ display: "flex", gap: 12, alignItems: "center", padding: "6px 8px", borderBottom: `1px solid ${theme.border}`, flexWrap: "wrap" }}>
        <b>Lockstep</b>
        <span style={{ color: theme.muted }}>{config.policy.type}</span>
        <span>
          sets <b data-testid="tuple-count">{stats?.tuples ?? 0}</b>
        </span>
        <span>
          messages <b data-testid="ingested">{store.ingested}</b>
        </span>
        <span>
          drops <b data-testid="drop-count">{Object.values(stats?.drops ?? {}).reduce((a, b) => a + b, 0)}</b>
        </span>
        {engine.skipped > 0 && (
          <span data-testid="skipped" data-count={engine.skipped} style={{ color: theme.error }} title="The analysis could not keep up with the data rate; these live messages were not analyzed">
            skipped {engine.skipped}
          </span>
        )}
        {publishing && <span data-testid="publishing" style={{ color: theme.matched }}>publishing under {namespace}</span>}
        <span style={{ flex: 1 }} />
        {analysis.state === "running" ? (
          <span data-testid="analysis-progress">
            analyzing {(100 * analysis.fraction).toFixed(0)}% ({analysis.messages} messages){" "}
            <button style={button} onClick={() => { analysis.abort.abort(); }}>
              Cancel
            </button>
          </span>
        ) : analysis.state === "done" ? (
          <span data-testid="analysis-done">
            {analysis.cancelled ? "analysis cancelled" : "whole recording analyzed"} ({analysis.messages} messages){" "}
            <button style={button} onClick={backToLive}>
              Back to playback
            </button>
          </span>
        ) : (
          <button
            style={{ ...button, opacity: canAnalyze ? 1 : 0.5 }}
            disabled={!canAnalyze}
            title={canAnalyze ? "Run the pipeline over every message of the recording" : "Only recordings can be analyzed as a whole"}
            onClick={runAnalysis}
            data-testid="analyze-button"
          >
            Analyze whole recording
          </button>
        )}
      </div>
      {(!valid || engineError != undefined) && (
        <div data-testid="config-error" style={{ color: theme.error, padding: "4px 8px", whiteSpace: "pre-wrap", fontSize: 12 }}>
          {!valid ? `Configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")} (fix it in the panel settings)` : engineError}
        </div>
      )}
      {engineNote != undefined && (
        <div data-testid="engine-fallback" style={{ color: theme.muted, padding: "2px 8px", fontSize: 12 }}>
          {engineNote}
        </div>
      )}
      <div style={{ display: "flex", gap: 2, padding: "4px 8px" }}>
        {TABS.map((t) => (
          <button
            key={t}
            data-testid={`tab-${t}`}
            onClick={() => { setTab(t); }}
            style={{ ...button, background: t === tab ? theme.accent : theme.panel, color: t === tab ? theme.background : theme.text }}
          >
            {t}
          </button>
        ))}
      </div>
      <div style={{ flex: 1, overflow: tab === "tuples" ? "hidden" : "auto", padding: "0 8px 8px" }}>
        {tab === "tuples" && <TuplesTable tuples={store.tuples} topics={inputTopics} baseSec={store.baseSec} theme={theme} height={viewHeight} />}
        {tab === "timeline" && (
          <Timeline marks={store.marks} topics={inputTopics} theme={theme} scheme={scheme} width={Math.max(200, size.width - 16)} version={version} onSeek={onSeek} />
        )}
        {tab === "drops" && <DropsView stats={stats} examples={store.dropExamples} baseSec={store.baseSec} theme={theme} scheme={scheme} />}
        {tab === "stats" && <StatsView stats={stats} hints={store.hints} theme={theme} />}
        {tab === "transactions" && <TransactionsView transactions={store.transactions} theme={theme} fusionOn={config.fusion != undefined} />}
        {tab === "trajectory" && (
          <TrajectoryView raw={store.rawPoses} fused={store.fusedPoses} theme={theme} width={Math.max(200, size.width - 16)} height={viewHeight} version={version} />
        )}
        {tab === "compare" && <CompareView main={stats} compare={store.compare} compareType={compareType} onCompareType={setCompareType} theme={theme} />}
      </div>
    </div>
  );
}

/** Mounts the Lockstep panel into the host's element; returns the cleanup the host calls. */
export function initLockstepPanel(context: PanelExtensionContext): () => void {
  const root = createRoot(context.panelElement);
  root.render(<LockstepPanel context={context} />);
  return () => {
    root.unmount();
  };
}
