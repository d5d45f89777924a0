import type { ReactElement } from "react";

import type { PanelView, ViewProps } from "./PanelView";
import { appliedFixText, stampFixText } from "./appliedFix";
import { forPanel, topicDiagnosis } from "./diagnosisTopics";
import type { Diagnosis } from "../../pipeline/diagnosis";
import { countOf } from "../../pipeline/diagnosis/format";

/**
 * Why sets are missing and what to change: the diagnosis of the results so far (asked for with
 * the button, computed in the engine by re-running the policy on the stamps it saw), its causes
 * ranked by the sets each costs (with an "Apply" for a cause's input stamp sources), and its
 * suggestions with their exact outcome and an "Apply" that makes the suggested policy the panel's
 * (the analysis then re-runs with it). Inputs without a message (a topic the data source lacks)
 * are named first, with the topic most likely meant, whether or not the button was pressed. After
 * an "Apply", while the config keeps the fix, what the analysis gives with it stands beside what
 * the diagnosis predicted.
 */
export function DiagnosisView(
  props: { diagnosis: Diagnosis | undefined } & Pick<ViewProps, "theme" | "diagnose" | "applyFix" | "applied" | "whole" | "store" | "config" | "sourceTopics">,
): ReactElement {
  const { diagnosis: d, theme, diagnose, applyFix, applied } = props;
  const button = { background: theme.panel, color: theme.text, border: `1px solid ${theme.border}`, borderRadius: 4, padding: "2px 8px", cursor: "pointer" } as const;
  const hasData = props.store.stats != undefined;
  const { sourceTopics } = props;
  const topicLines = topicDiagnosis(props.config.inputs, props.store.stats?.topics, sourceTopics);
  return (
    <div style={{ fontSize: 12 }} data-testid="diagnosis-view">
      {topicLines.length > 0 && (
        <div data-testid="diagnosis-topics" style={{ fontWeight: 600, marginBottom: 6 }}>
          {topicLines.map((line) => (
            <p key={line} style={{ margin: "2px 0" }}>
              {line}
            </p>
          ))}
          <div style={{ color: theme.muted, fontWeight: 400 }}>Change the topics in the panel settings (Input topics).</div>
        </div>
      )}
      {applied != undefined && (
        <p data-testid="diagnosis-applied" data-predicted={applied.predicted} data-sets={props.store.stats?.tuples} data-whole={props.whole.state} style={{ margin: "0 0 6px" }}>
          {appliedFixText(applied, { sets: props.store.stats?.tuples, messages: props.store.ingested, whole: props.whole })}
        </p>
      )}
      <button data-testid="diagnosis-run" style={button} disabled={!hasData} onClick={diagnose}>
        {d == undefined ? "Diagnose" : "Diagnose again"}
      </button>
      {!hasData && <span style={{ color: theme.muted, marginLeft: 8 }}>No data yet: play the recording or analyze it whole first.</span>}
      {d != undefined && (
        <>
          <p data-testid="diagnosis-headline" style={{ fontWeight: 600 }}>
            {forPanel(d.headline, sourceTopics)}
          </p>
          {d.causes.length > 0 && (
            <>
              <div style={{ color: theme.muted }}>Causes, by the sets each costs</div>
              <ol style={{ paddingLeft: 18, marginTop: 2 }}>
                {d.causes.map((c, i) => (
                  <li key={i} data-testid={`diagnosis-cause-${i}`} data-id={c.id} data-sets-lost={c.setsLost}>
                    <b>{c.id}</b>
                    {c.topic == undefined ? "" : ` (${c.topic})`}: {forPanel(c.message, sourceTopics)}
                    {c.stampFix != undefined && (
                      <div data-testid={`diagnosis-stamp-fix-${i}`} data-tuples={c.stampFix.tuples}>
                        {stampFixText(c.stampFix)}: {countOf(c.stampFix.tuples, "set")}{" "}
                        <button
                          data-testid={`diagnosis-stamp-apply-${i}`}
                          style={button}
                          onClick={() => {
                            const { stamps, policy, tuples } = c.stampFix!;
                            const fix = { change: stampFixText(c.stampFix!), predicted: tuples, before: d.tuples, events: d.events };
                            applyFix(policy == undefined ? { ...fix, stamps } : { ...fix, stamps, policy });
                          }}
                        >
                          Apply
                        </button>
                      </div>
                    )}
                  </li>
                ))}
              </ol>
            </>
          )}
          {d.suggestions.length > 0 && (
            <>
              <div style={{ color: theme.muted }}>Suggestions (counts are actual runs of the policy on these stamps)</div>
              <ol style={{ paddingLeft: 18, marginTop: 2 }}>
                {d.suggestions.map((s, i) => (
                  <li key={i} data-testid={`diagnosis-suggestion-${i}`} data-tuples={s.tuples} style={{ marginBottom: 4 }}>
                    {s.message}{" "}
                    <button
                      data-testid={`diagnosis-apply-${i}`}
                      style={button}
                      onClick={() => {
                        applyFix({ change: s.change, policy: s.policy, predicted: s.tuples, before: d.tuples, events: d.events });
                      }}
                    >
                      Apply
                    </button>
                    <div style={{ color: theme.muted, fontFamily: "monospace", overflowWrap: "anywhere" }}>{JSON.stringify(s.policy)}</div>
                  </li>
                ))}
              </ol>
            </>
          )}
          <div style={{ color: theme.muted }}>
            {d.runs} policy runs over {d.events} input messages
            {d.eventsNotDiagnosed > 0 ? ` (${d.eventsNotDiagnosed} more not diagnosed)` : ""}.
          </div>
        </>
      )}
    </div>
  );
}

/** The diagnosis tab. */
export const diagnosisView: PanelView = {
  id: "diagnosis",
  label: "diagnosis",
  scrolls: true,
  render: (p) => (
    <DiagnosisView
      diagnosis={p.store.diagnosis}
      store={p.store}
      config={p.config}
      sourceTopics={p.sourceTopics}
      theme={p.theme}
      diagnose={p.diagnose}
      applyFix={p.applyFix}
      applied={p.applied}
      whole={p.whole}
    />
  ),
};
