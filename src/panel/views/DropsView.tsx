import type { ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { fmtStamp } from "./format";
import { reasonColor, type Theme } from "./theme";
import type { DropReason } from "../../pipeline";
import type { DropRow, EngineStats } from "../engine/engineTypes";

/** Drops by reason: count, share, and the first examples of each (topic, stamp, detail). */
export function DropsView(props: {
  stats: EngineStats | undefined;
  examples: ReadonlyMap<DropReason, readonly DropRow[]>;
  baseSec: number | undefined;
  theme: Theme;
  scheme: "dark" | "light" | undefined;
}): ReactElement {
  const { stats, examples, baseSec, theme, scheme } = props;
  const entries = Object.entries(stats?.drops ?? {}).sort((a, b) => b[1] - a[1]) as [DropReason, number][];
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (entries.length === 0) {
    return <div style={{ color: theme.muted }}>No message dropped.</div>;
  }
  return (
    <div style={{ fontSize: 12 }}>
      <div style={{ marginBottom: 6 }}>
        <span data-testid="drops-total">{total}</span> messages dropped
      </div>
      {entries.map(([reason, n]) => (
        <details key={reason} style={{ marginBottom: 4 }} data-testid={`drop-${reason}`} data-count={n}>
          <summary style={{ cursor: "pointer" }}>
            <span style={{ display: "inline-block", width: 10, height: 10, background: reasonColor(reason, scheme), marginRight: 6 }} />
            <b>{reason}</b>: {n} ({((100 * n) / total).toFixed(1)}%)
          </summary>
          <table style={{ marginLeft: 16, borderSpacing: "8px 0" }}>
            <tbody>
              {(examples.get(reason) ?? []).map((d, i) => (
                <tr key={i}>
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
  render: (p) => <DropsView stats={p.store.stats} examples={p.store.dropExamples} baseSec={p.store.baseSec} theme={p.theme} scheme={p.scheme} />,
};
