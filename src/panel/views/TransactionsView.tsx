import type { ReactElement } from "react";

import type { PanelView } from "./PanelView";
import type { Theme } from "./theme";
import type { TransactionJson } from "../../pipeline";
import type { RingBuffer } from "../state/RingBuffer";

function nums(xs: readonly number[]): string {
  return `[${xs.map((x) => (Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(2) : x.toFixed(3))).join(", ")}]`;
}

/**
 * The fusion transactions (DESIGN §3.4 JSON), newest first, as a tree: each transaction's added
 * variables (type, stamp, values) and constraints (type, variables, mean, covariance, validation).
 */
export function TransactionsView(props: { transactions: RingBuffer<TransactionJson>; theme: Theme; fusionOn: boolean }): ReactElement {
  const { transactions, theme, fusionOn } = props;
  if (transactions.size === 0) {
    return (
      <div style={{ color: theme.muted }}>
        {fusionOn ? "No transaction yet." : "Fusion is off: enable it in the panel settings (Fusion) to preview fuse transactions."}
      </div>
    );
  }
  const items: ReactElement[] = [];
  for (let i = transactions.size - 1; i >= Math.max(0, transactions.size - 200); i--) {
    const tx = transactions.at(i)!;
    items.push(
      <details key={i} style={{ marginBottom: 2 }} data-testid="transaction">
        <summary style={{ cursor: "pointer" }}>
          {tx.stamp} — {tx.source}: +{tx.addedVariables.length} variables, +{tx.addedConstraints.length}{" "}
          constraints, −{tx.removedVariables.length}/−{tx.removedConstraints.length}
        </summary>
        <div style={{ marginLeft: 16 }}>
          {tx.addedVariables.map((v, j) => (
            <div key={`v${j}`}>
              <b>{v.type}</b> @ {v.stamp ?? "–"} = {nums(v.data)} <span style={{ color: theme.muted }}>{v.uuid}</span>
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
  return <div style={{ fontSize: 12 }}>{items}</div>;
}

/** The transactions tab. */
export const transactionsView: PanelView = {
  id: "transactions",
  label: "transactions",
  scrolls: true,
  render: (p) => <TransactionsView transactions={p.store.transactions} theme={p.theme} fusionOn={p.config.fusion != undefined} />,
};
