import { Fragment, type ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { fmtMs } from "./format";
import type { Theme } from "./theme";
import type { EngineStats } from "../engine/engineTypes";

/** Counts and rates: right-aligned, and never broken over two lines ("30.0 / Hz") in a narrow panel. */
const NUMBER = { textAlign: "right", whiteSpace: "nowrap" } as const;
/**
 * A topic name with a line-break opportunity after each "/", so that a long name wraps between
 * its parts ("/husky_velocity_controller/" "odom") rather than pushing the counts out of view.
 */
function topicWithBreaks(topic: string): ReactElement {
  const parts = topic.split("/");
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </Fragment>
      ))}
    </>
  );
}

/** Per-topic counts, set statistics (timespan, lag) and the tuning hints. */
export function StatsView(props: { stats: EngineStats | undefined; hints: readonly string[]; theme: Theme }): ReactElement {
  const { stats, hints, theme } = props;
  if (!stats) {
    return <div style={{ color: theme.muted }}>No data yet.</div>;
  }
  return (
    <div style={{ fontSize: 12 }}>
      <table style={{ borderSpacing: "12px 2px", marginLeft: -12 }}>
        <thead>
          <tr style={{ textAlign: "left" }}>
            <th style={NUMBER}>slot</th>
            <th>topic</th>
            <th style={NUMBER}>messages</th>
            <th style={NUMBER}>matched</th>
            <th style={NUMBER}>dropped</th>
            <th style={NUMBER}>rate</th>
          </tr>
        </thead>
        <tbody>
          {stats.topics.map((t, i) => {
            return (
              <tr key={i} data-testid={`topic-row-${i}`}>
                <td style={NUMBER}>{i}</td>
                <td>{topicWithBreaks(t.topic)}</td>
                <td style={NUMBER}>{t.messages}</td>
                <td style={NUMBER}>{t.matched}</td>
                <td style={NUMBER}>{t.dropped}</td>
                <td style={NUMBER}>{Number.isFinite(t.rate) ? `${t.rate.toFixed(1)} Hz` : "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p>
        Policy <b>{stats.policyType}</b>: <span data-testid="stats-tuples">{stats.tuples}</span> sets. Timespan min{" "}
        {fmtMs(stats.timespan?.min)}, median {fmtMs(stats.timespan?.median)}, p95 {fmtMs(stats.timespan?.p95)}, max{" "}
        {fmtMs(stats.timespan?.max)}. Lag median {fmtMs(stats.lag?.median)}, p95 {fmtMs(stats.lag?.p95)}.
      </p>
      {hints.length > 0 && (
        <ul data-testid="hints" style={{ paddingLeft: 18 }}>
          {hints.map((h, i) => (
            <li key={i}>{h}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The stats tab. */
export const statsView: PanelView = {
  id: "stats",
  label: "stats",
  scrolls: true,
  render: (p) => <StatsView stats={p.store.stats} hints={p.store.hints} theme={p.theme} />,
};
