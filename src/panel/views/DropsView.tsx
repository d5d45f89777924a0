import type { ReactElement } from "react";

import type { PanelView, ViewProps } from "./PanelView";
import { fmtStamp } from "./format";
import { reasonColor, type Theme } from "./theme";
import type { DropReason } from "../../pipeline";
import type { DropExplanation } from "../../pipeline/diagnosis";
import type { DropRow, EngineStats } from "../engine/engineTypes";

/** What decided one drop, as the engine explained it (see DropExplainer). */
function Explanation(props: { slot: number; stamp: number; explanation: DropExplanation | undefined; topics: readonly string[]; baseSec: number | undefined; theme: Theme }): ReactElement {
  const { explanation: x, theme } = props;
  return (
    <div data-testid="drop-explanation" data-reason={x?.reason ?? ""} style={{ border: `1px solid ${theme.border}`, borderRadius: 4, padding: "4px 6px", marginBottom: 8 }}>
      <b>
        {props.topics[props.slot] ?? `slot ${props.slot}`} {fmtStamp(props.stamp, props.baseSec)}
      </b>
      {x == undefined ? (
        <span style={{ color: theme.muted }}>: not a synchronizer drop of a stamped message (a fusion or read drop), so there is no re-run to explain it.</span>
      ) : (
        <>
          : <span data-testid="drop-explanation-message">{x.message}</span>
          {x.decidedBy != undefined && <div style={{ color: theme.muted }}>decided when {x.decidedBy.topic} arrived (input message {x.decidedBy.event + 1})</div>}
          {x.partners.length > 0 && (
            <div style={{ color: theme.muted }}>
              nearest on the other inputs:{" "}
              {x.partners
                .map((p) =>
                  p.distance == undefined
                    ? `${p.topic}: none`
                    : `${p.topic} ${(p.distance / 1e6).toFixed(1)} ms away${p.arrivedAfterDrop != undefined && p.arrivedAfterDrop > 0 ? `, arrived ${(p.arrivedAfterDrop / 1e6).toFixed(1)} ms after the drop` : ""}`,
                )
                .join("; ")}
            </div>
          )}
        </>
      )}
    </div>
  );
}

/**
 * Drops by reason: count, share, and the first examples of each (topic, stamp, detail). Clicking
 * an example asks the engine what decided it; the answer shows above the list.
 */
export function DropsView(props: {
  stats: EngineStats | undefined;
  examples: ReadonlyMap<DropReason, readonly DropRow[]>;
  baseSec: number | undefined;
  theme: Theme;
  scheme: "dark" | "light" | undefined;
  topics: readonly string[];
  explanation: ViewProps["store"]["explanation"];
  explain: ViewProps["explain"];
}): ReactElement {
  const { stats, examples, baseSec, theme, scheme, explanation, explain } = props;
  const entries = Object.entries(stats?.drops ?? {}).sort((a, b) => b[1] - a[1]) as [DropReason, number][];
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (entries.length === 0) {
    return <div style={{ color: theme.muted }}>No message dropped.</div>;
  }
  return (
    <div style={{ fontSize: 12 }}>
      <div style={{ marginBottom: 6 }}>
        <span data-testid="drops-total">{total}</span> messages dropped
        <span style={{ color: theme.muted }}> (click an example to see what decided it)</span>
      </div>
      {explanation != undefined && <Explanation {...explanation} topics={props.topics} baseSec={baseSec} theme={theme} />}
      {entries.map(([reason, n]) => (
        <details key={reason} style={{ marginBottom: 4 }} data-testid={`drop-${reason}`} data-count={n}>
          <summary style={{ cursor: "pointer" }}>
            <span style={{ display: "inline-block", width: 10, height: 10, background: reasonColor(reason, scheme), marginRight: 6 }} />
            <b>{reason}</b>: {n} ({((100 * n) / total).toFixed(1)}%)
          </summary>
          <table style={{ marginLeft: 16, borderSpacing: "8px 0" }}>
            <tbody>
              {(examples.get(reason) ?? []).map((d, i) => (
                <tr
                  key={i}
                  data-testid={`drop-example-${reason}-${i}`}
                  style={{ cursor: Number.isNaN(d.stamp) || d.slot < 0 ? "default" : "pointer" }}
                  onClick={() => {
                    if (!Number.isNaN(d.stamp) && d.slot >= 0) {
                      explain(d.slot, d.stamp);
                    }
                  }}
                >
                  <td>{d.topic}</td>
                  <td>{fmtStamp(d.stamp, baseSec)}</td>
                  <td style={{ color: theme.muted }}>{d.detail ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
    </div>
  );
}

/** The drops tab. */
export const dropsView: PanelView = {
  id: "drops",
  label: "drops",
  scrolls: true,
  render: (p) => (
    <DropsView
      stats={p.store.stats}
      examples={p.store.dropExamples}
      baseSec={p.store.baseSec}
      theme={p.theme}
      scheme={p.scheme}
      topics={p.topics}
      explanation={p.store.explanation}
      explain={p.explain}
    />
  ),
};
