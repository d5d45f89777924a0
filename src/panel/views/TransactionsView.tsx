import type { ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { fusionSummaryLines, type FusionSummaryLine } from "./fusionSummary";
import type { Theme } from "./theme";
import type { TransactionJson } from "../../pipeline";
import { nanosecondsText } from "../../time";
import type { FusionSummary } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

function nums(xs: readonly number[]): string {
  return `[${xs.map((x) => (Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(2) : x.toFixed(3))).join(", ")}]`;
}

/**
 * The fusion run as a whole, above the tree: transactions per sensor, drops per reason with the
 * newest of them, the final pose and the warnings (analyze's "fusion:" lines).
 */
function FusionSummaryView(props: { summary: FusionSummary; theme: Theme; formatStamp: (stamp: number) => string }): ReactElement {
  const { summary, theme, formatStamp } = props;
  const colour = (kind: FusionSummaryLine["kind"]): string | undefined =>
    kind === "warning" || (kind === "drops" && summary.drops.length > 0) ? theme.error : kind === "drop" ? theme.muted : undefined;
  return (
    <div data-testid="fusion-summary" style={{ marginBottom: 6 }}>
      {fusionSummaryLines(summary, formatStamp).map((line, i) => (
        <div key={i} data-kind={line.kind} style={{ color: colour(line.kind), marginLeft: line.kind === "drop" ? 12 : 0 }}>
          {line.text}
        </div>
      ))}
    </div>
  );
}

/**
 * The fusion transactions (DESIGN §3.4 JSON), newest first, as a tree: each transaction's added
 * variables (type, stamp, values) and constraints (type, variables, mean, covariance, validation);
 * above it, the run as a whole (FusionSummaryView).
 */
export function TransactionsView(props: {
  transactions: RingBuffer<TransactionJson>;
  summary: FusionSummary | undefined;
  theme: Theme;
  fusionOn: boolean;
  formatStamp: (stamp: number) => string;
}): ReactElement {
  const { transactions, summary, theme, fusionOn, formatStamp } = props;
  const head = summary && <FusionSummaryView summary={summary} theme={theme} formatStamp={formatStamp} />;
  if (transactions.size === 0) {
    return (
      <div style={{ fontSize: 12 }}>
        {head}
        <div style={{ color: theme.muted }}>
          {fusionOn ? "No transaction yet." : "Fusion is off: enable it in the panel settings (Fusion) to preview fuse transactions."}
        </div>
      </div>
    );
  }
  const items: ReactElement[] = [];
  for (let i = transactions.size - 1; i >= Math.max(0, transactions.size - 200); i--) {
    const tx = transactions.at(i)!;
    items.push(
      <details key={i} style={{ marginBottom: 2 }} data-testid="transaction">
        <summary style={{ cursor: "pointer" }}>
          {nanosecondsText(tx.stamp)} — {tx.source}: +{tx.addedVariables.length} variables, +{tx.addedConstraints.length}{" "}
          constraints, −{tx.removedVariables.length}/−{tx.removedConstraints.length}
        </summary>
        <div style={{ marginLeft: 16 }}>
          {tx.addedVariables.map((v, j) => (
            <div key={`v${j}`}>
              <b>{v.type}</b> @ {v.stamp == undefined ? "–" : nanosecondsText(v.stamp)} = {nums(v.data)} <span style={{ color: theme.muted }}>{v.uuid}</span>
            </div>
          ))}
          {tx.addedConstraints.map((c, j) => (
            <details key={`c${j}`}>
              <summary>
                <b>{c.type}</b> ({c.source}) mean {nums(c.mean)}{" "}
                {c.valid === false ? <span style={{ color: theme.error }}>invalid: {String(c.validation)}</span> : <span style={{ color: theme.muted }}>valid</span>}
              </summary>
              <div style={{ marginLeft: 16, color: theme.muted }}>
                variables: {c.variables.join(", ")}
                {c.covariance.map((row, k) => (
                  <div key={k}>{nums(row)}</div>
                ))}
              </div>
            </details>
          ))}
        </div>
      </details>,
    );
  }
  return (
    <div style={{ fontSize: 12 }}>
      {head}
      {items}
    </div>
  );
}

/** The transactions tab. */
export const transactionsView: PanelView = {
  id: "transactions",
  label: "transactions",
  scrolls: true,
  render: (p) => (
    <TransactionsView
      transactions={p.store.transactions}
      summary={p.store.fusion}
      theme={p.theme}
      fusionOn={p.config.fusion != undefined}
      formatStamp={p.formatStamp}
    />
  ),
};
