import type { Topic } from "@foxglove/extension";
import type { ReactElement } from "react";

import { analysisDoneText, headerNotices } from "./headerText";
import type { Theme } from "./theme";
import type { ConfigIssue } from "../../pipeline/ConfigError";
import type { Analysis } from "../hooks/useAnalysis";
import type { LockstepConfig } from "../settings/panelConfig";
import { PRESETS } from "../settings/presets";
import { matchingPresets, stampedTopics } from "../settings/stampedTopics";
import { accounting } from "../state/ViewStore";

/**
 * The panel's header: the accounting of every received message (in sets + dropped + held),
 * publishing and engine state, the whole-recording analysis controls; below it either the empty
 * state (no inputs yet: the data source's stamped topics and matching presets), the config's
 * validation problems, or an engine error.
 */
export function Header(props: {
  config: LockstepConfig;
  issues: readonly ConfigIssue[];
  analysis: Analysis;
  publishing: string | undefined;
  topics: readonly Topic[] | undefined;
  theme: Theme;
}): ReactElement {
  const { config, issues, analysis, publishing, topics, theme } = props;
  const { store, engine, whole, canAnalyze } = analysis;
  const acc = accounting(store);
  const button = { background: theme.panel, color: theme.text, border: `1px solid ${theme.border}`, borderRadius: 4, padding: "2px 8px", cursor: "pointer" } as const;
  const empty = config.inputs.length === 0;
  const notices = headerNotices(config, issues, topics?.map((t) => t.name));
  return (
    <>
      <div style={{ display: "flex", gap: 12, alignItems: "center", padding: "6px 8px", borderBottom: `1px solid ${theme.border}`, flexWrap: "wrap" }}>
        <b>Lockstep</b>
        <span style={{ color: theme.muted }}>{config.policy.type}</span>
        <span>
          sets <b data-testid="tuple-count">{store.stats?.tuples ?? 0}</b>
        </span>
        <span title="Every message the panel received is in a set, dropped with a reason, or still held by the policy">
          messages <b data-testid="ingested">{acc.received}</b> = in sets <b data-testid="matched-count">{acc.matched}</b> + drops{" "}
          <b data-testid="drop-count">{acc.dropped}</b> + held <b data-testid="held-count">{acc.held}</b>
        </span>
        {engine.skipped > 0 && (
          <span data-testid="skipped" data-count={engine.skipped} style={{ color: theme.error }} title="The analysis could not keep up with the live data rate; these messages were not analyzed">
            skipped {engine.skipped}
          </span>
        )}
        {publishing != undefined && (
          <span data-testid="publishing" style={{ color: theme.matched }}>
            publishing under {publishing}
          </span>
        )}
        <span style={{ flex: 1 }} />
        {whole.state === "running" ? (
          <span data-testid="analysis-progress" data-fraction={whole.fraction}>
            analyzing {(100 * whole.fraction).toFixed(0)}% ({whole.messages} messages){" "}
            <button style={button} onClick={() => { whole.abort.abort(); }}>
              Cancel
            </button>
          </span>
        ) : whole.state === "done" ? (
          <span
            data-testid="analysis-done"
            data-messages-per-sec={Math.round(whole.messagesPerSec)}
            data-stale={issues.length > 0}
            style={issues.length > 0 ? { color: theme.muted, fontStyle: "italic" } : undefined}
          >
            {analysisDoneText(whole, { valid: issues.length === 0 })}{" "}
            <button style={button} onClick={analysis.backToPlayback}>
              Back to playback
            </button>
          </span>
        ) : (
          <>
            {whole.state === "stale" && (
              <span data-testid="analysis-stale" style={{ color: theme.muted }}>
                settings changed since the whole-recording analysis
              </span>
            )}
            <button
              style={{ ...button, opacity: canAnalyze ? 1 : 0.5 }}
              disabled={!canAnalyze}
              title={canAnalyze ? "Run the pipeline over every message of the recording" : "Only recordings can be analyzed as a whole"}
              onClick={analysis.run}
              data-testid="analyze-button"
            >
              {whole.state === "stale" ? "Re-run whole-recording analysis" : "Analyze whole recording"}
            </button>
          </>
        )}
      </div>
      {engine.fallbackReason != undefined && (
        <div data-testid="engine-fallback" style={{ color: theme.muted, padding: "2px 8px", fontSize: 12 }}>
          {engine.fallbackReason}
        </div>
      )}
      {!empty && notices.missing.length > 0 && (
        <div data-testid="missing-topics" style={{ color: theme.error, padding: "4px 8px", whiteSpace: "pre-wrap", fontSize: 12 }}>
          {`${notices.missing.join("\n")}\n(change the topic in the panel settings: Input topics)`}
        </div>
      )}
      {empty ? (
        <EmptyState topics={topics} theme={theme} />
      ) : issues.length > 0 ? (
        <div data-testid="config-error" style={{ color: theme.error, padding: "4px 8px", whiteSpace: "pre-wrap", fontSize: 12 }}>
          {`Configuration: ${notices.issues.join("; ")} (fix it in the panel settings)`}
        </div>
      ) : (
        analysis.engineError != undefined && (
          <div data-testid="config-error" style={{ color: theme.error, padding: "4px 8px", whiteSpace: "pre-wrap", fontSize: 12 }}>
            {analysis.engineError}
          </div>
        )
      )}
    </>
  );
}

/** No inputs yet: what the data source offers, instead of an error. */
function EmptyState(props: { topics: readonly Topic[] | undefined; theme: Theme }): ReactElement {
  const { topics, theme } = props;
  const stamped = stampedTopics(topics);
  const presets = matchingPresets(PRESETS, topics);
  return (
    <div data-testid="empty-state" style={{ padding: "6px 8px", fontSize: 12, lineHeight: 1.5 }}>
      <div>Choose input topics in the panel settings (Input topics → +), or load a preset.</div>
      {presets.length > 0 && (
        <div data-testid="empty-presets">
          Presets for this data source: <b>{presets.join(", ")}</b> (Presets → Load preset)
        </div>
      )}
      {topics == undefined ? (
        <div style={{ color: theme.muted }}>Waiting for the data source&apos;s topics…</div>
      ) : stamped.length > 0 ? (
        <div data-testid="empty-topics">
          Topics with header stamps:{" "}
          {stamped.map((t, i) => (
            <span key={t.name}>
              {i > 0 && ", "}
              <code>{t.name}</code> <span style={{ color: theme.muted }}>({t.schemaName})</span>
            </span>
          ))}
        </div>
      ) : (
        <div style={{ color: theme.muted }}>This data source has no topic with header stamps.</div>
      )}
    </div>
  );
}
