import type { PanelExtensionContext } from "@foxglove/extension";
import { useEffect, useMemo, useRef, useState, type ReactElement } from "react";
import { createRoot } from "react-dom/client";

import { RAW_PLACEMENTS } from "../pipeline";
import { useAnalysis } from "./hooks/useAnalysis";
import { useHostState } from "./hooks/useHostState";
import { usePanelSettings } from "./hooks/usePanelSettings";
import { usePublishing } from "./hooks/usePublishing";
import { useRenderLoop } from "./hooks/useRenderLoop";
import { analysisKey } from "./settings/analysisKey";
import { publishNamespace } from "./settings/panelConfig";
import { DEFAULT_COMPARE_TYPE } from "./settings/viewChoices";
import { MessageCache } from "./state/MessageCache";
import { publishUnavailableReason, type TuplePublisher } from "./state/Publisher";
import { Header } from "./views/Header";
import type { ViewProps } from "./views/PanelView";
import { fixInForce, type AppliedFix } from "./views/appliedFix";
import { VIEWS } from "./views/registry";
import { themeFor } from "./views/theme";
import { absoluteTime, relativeStamp, secondsAfterStart, stampFormatter } from "./views/timeFormat";

export { configIssues } from "./hooks/usePanelSettings";

function usePanelSize(el: HTMLElement): { width: number; height: number } {
  const [size, setSize] = useState({ width: 800, height: 500 });
  useEffect(() => {
    const obs = new ResizeObserver(() => {
      setSize({ width: el.clientWidth, height: el.clientHeight });
    });
    obs.observe(el);
    return () => {
      obs.disconnect();
    };
  }, [el]);
  return size;
}

/** The panel: settings, analysis and publishing hooks composed, the header, and the registered views. */
function LockstepPanel({ context }: { context: PanelExtensionContext }): ReactElement {
  const { host, onChanges } = useHostState();
  const cache = useMemo(() => new MessageCache(), []);
  const publisher = useRef<TuplePublisher | undefined>(undefined);
  const [applied, setApplied] = useState<AppliedFix | undefined>(undefined);
  const { config, issues, setPolicy, setStampSources, setView } = usePanelSettings(context, { topics: host.topics, publishReason: publishUnavailableReason(context) });
  // The view choices live in the config, so the layout keeps them.
  const tab = config.view?.tab ?? VIEWS[0]!.id;
  const compareType = config.view?.compare ?? DEFAULT_COMPARE_TYPE;
  const rawPlacement = config.view?.rawPlacement ?? RAW_PLACEMENTS[0];
  const key = issues.length === 0 ? analysisKey(config) : undefined;
  const analysis = useAnalysis({ context, key, compareType, start: host.start, end: host.end, onHostChanges: onChanges, publisher, cache });
  useRenderLoop(context, analysis.handler);
  const namespace = publishNamespace(config);
  const { publishing } = usePublishing({
    context,
    wanted: key != undefined && config.publish?.enabled === true,
    namespace,
    inputTopics: analysis.inputTopics,
    topics: host.topics,
    fusion: config.fusion != undefined,
    handler: analysis.handler,
    cache,
    publisher,
  });
  const size = usePanelSize(context.panelElement);
  const theme = themeFor(host.scheme);
  const { store, version } = analysis;
  const baseSec = store.baseSec;
  const view = VIEWS.find((v) => v.id === tab) ?? VIEWS[0]!;
  const props: ViewProps = {
    store,
    version,
    config,
    topics: config.inputs.map((i) => i.topic),
    sourceTopics: host.topics?.map((t) => t.name),
    theme,
    scheme: host.scheme,
    width: Math.max(200, size.width - 16),
    height: Math.max(120, size.height - 86),
    playhead: host.currentTime && baseSec != undefined ? relativeStamp(host.currentTime, baseSec) : undefined,
    formatStamp: stampFormatter(baseSec, host.start, host.timeFormat, host.timezone),
    seek:
      context.seekPlayback == undefined || baseSec == undefined
        ? undefined
        : (stamp) => {
            context.seekPlayback?.(absoluteTime(stamp, baseSec));
          },
    preview:
      host.start == undefined || baseSec == undefined
        ? undefined
        : (stamp) => {
            context.setPreviewTime(stamp == undefined ? undefined : secondsAfterStart(stamp, baseSec, host.start!));
          },
    compare: {
      type: compareType,
      setType: (type) => {
        setView({ compare: type });
      },
    },
    trajectory: {
      rawPlacement,
      setRawPlacement: (placement) => {
        setView({ rawPlacement: placement });
      },
    },
    diagnose: () => {
      analysis.engine.diagnose();
    },
    explain: (slot, stamp) => {
      analysis.engine.explain(slot, stamp);
    },
    applyFix: (fix) => {
      if (fix.policy != undefined) {
        setPolicy(fix.policy);
      }
      if (fix.stamps != undefined) {
        setStampSources(fix.stamps);
      }
      setApplied(fix);
    },
    applied: applied != undefined && fixInForce(applied, config) ? applied : undefined,
    whole: analysis.whole,
  };
  return (
    <div
      data-testid="lockstep-root"
      data-version={version}
      style={{ background: theme.background, color: theme.text, height: "100%", display: "flex", flexDirection: "column", fontFamily: "system-ui, sans-serif", fontSize: 13, overflow: "hidden" }}
    >
      <Header config={config} issues={issues} analysis={analysis} publishing={publishing ? namespace : undefined} topics={host.topics} theme={theme} />
      <div style={{ display: "flex", gap: 2, padding: "4px 8px", flexWrap: "wrap" }}>
        {VIEWS.map((v) => (
          <button
            key={v.id}
            data-testid={`tab-${v.id}`}
            onClick={() => {
              setView({ tab: v.id });
            }}
            style={{ background: v.id === view.id ? theme.accent : theme.panel, color: v.id === view.id ? theme.background : theme.text, border: `1px solid ${theme.border}`, borderRadius: 4, padding: "2px 8px", cursor: "pointer" }}
          >
            {v.label}
          </button>
        ))}
      </div>
      <div data-testid="panel-view" data-view={view.id} style={{ flex: 1, overflow: view.scrolls ? "auto" : "hidden", padding: "0 8px 8px" }}>
        {view.render(props)}
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
