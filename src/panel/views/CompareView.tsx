import type { ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { fmtMs } from "./format";
import type { Theme } from "./theme";
import type { EngineStats } from "../engine/engineTypes";
import { POLICY_TYPES } from "../settings/policyParams";

function column(s: EngineStats | undefined): (string | number)[] {
  if (!s) {
    return ["–", "–", "–", "–", "–"];
  }
  const drops = Object.values(s.drops).reduce((a, b) => a + b, 0);
  return [s.policyType, s.tuples, drops, fmtMs(s.timespan?.median), fmtMs(s.timespan?.max)];
}

/** The configured policy and a second one, run side by side on the same messages. */
export function CompareView(props: {
  main: EngineStats | undefined;
  compare: EngineStats | undefined;
  /** The comparison policy's config error: shown instead of numbers it does not have. */
  compareError?: string;
  compareType: string;
  onCompareType: (type: string) => void;
  theme: Theme;
}): ReactElement {
  const { main, compare, compareError, compareType, onCompareType, theme } = props;
  const a = column(main);
  const b = column(compare);
  const labels = ["policy", "sets", "drops", "timespan median", "timespan max"];
  return (
    <div style={{ fontSize: 12 }}>
      <label>
        Compare with{" "}
        <select
          value={compareType}
          onChange={(e) => {
            onCompareType(e.target.value);
          }}
          style={{ background: theme.panel, color: theme.text, border: `1px solid ${theme.border}` }}
        >
          {POLICY_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>{" "}
        (library defaults)
      </label>
      {compareError != undefined && (
        <div data-testid="compare-error" style={{ color: theme.error, marginTop: 6 }}>
          {compareType} with library defaults is not a valid config: {compareError}
        </div>
      )}
      <table style={{ borderSpacing: "16px 2px", marginLeft: -16, marginTop: 6 }}>
        <tbody>
          {labels.map((l, i) => (
            <tr key={l}>
              <td style={{ color: theme.muted }}>{l}</td>
              <td data-testid={`compare-main-${i}`}>{a[i]}</td>
              <td data-testid={`compare-other-${i}`}>{b[i]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {main && compare && (
        <div style={{ marginTop: 6 }}>
          {main.topics.map((t, i) => (
            <div key={i}>
              {t.topic}: matched {t.matched} vs {compare.topics[i]?.matched ?? "–"}, dropped {t.dropped} vs{" "}
              {compare.topics[i]?.dropped ?? "–"}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

/** The compare tab. */
export const compareView: PanelView = {
  id: "compare",
  label: "compare",
  scrolls: true,
  render: (p) => <CompareView main={p.store.stats} compare={p.store.compare} compareError={p.store.compareError} compareType={p.compare.type} onCompareType={p.compare.setType} theme={p.theme} />,
};
