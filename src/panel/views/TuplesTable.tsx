import { useState, type ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { fmtMs, fmtStamp } from "./format";
import type { Theme } from "./theme";
import type { TupleRow } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

const ROW_HEIGHT = 20;
const OVERSCAN = 10;

/** Which rows of a virtualized list are rendered for a scroll position (pure; exported for tests). */
export function visibleRange(scrollTop: number, viewHeight: number, count: number, rowHeight = ROW_HEIGHT): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + viewHeight) / rowHeight) + OVERSCAN);
  return [first, Math.max(first, last)];
}

/**
 * The synchronized tuples, newest last, virtualized: only the rows in view are in the DOM, so
 * the table stays fast at its cap (ViewStore CAPS.tuples rows).
 */
export function TuplesTable(props: {
  tuples: RingBuffer<TupleRow>;
  topics: readonly string[];
  baseSec: number | undefined;
  theme: Theme;
  height: number;
}): ReactElement {
  const { tuples, topics, baseSec, theme, height } = props;
  const [scrollTop, setScrollTop] = useState(Number.MAX_SAFE_INTEGER);
  const count = tuples.size;
  const viewHeight = Math.max(60, height - 24);
  const top = Math.min(scrollTop, Math.max(0, count * ROW_HEIGHT - viewHeight));
  const [first, last] = visibleRange(top, viewHeight, count);
  const cols = `60px repeat(${topics.length}, minmax(140px, 1fr)) 90px 90px`;
  const rows: ReactElement[] = [];
  for (let i = first; i < last; i++) {
    const t = tuples.at(i)!;
    rows.push(
      <div
        key={t.index}
        style={{ position: "absolute", top: i * ROW_HEIGHT, left: 0, right: 0, height: ROW_HEIGHT, display: "grid", gridTemplateColumns: cols, gap: 8, fontVariantNumeric: "tabular-nums" }}
      >
        <span style={{ color: theme.muted }}>{t.index}</span>
        {t.stamps.map((s, slot) => (
          <span key={slot}>{fmtStamp(s, baseSec)}</span>
        ))}
        <span>{fmtMs(t.timespan)}</span>
        <span>{fmtMs(t.lag)}</span>
      </div>,
    );
  }
  return (
    <div style={{ fontSize: 12 }}>
      <div style={{ display: "grid", gridTemplateColumns: cols, gap: 8, fontWeight: 600, height: 24, alignItems: "center", borderBottom: `1px solid ${theme.border}` }}>
        <span>#</span>
        {topics.map((t, i) => (
          <span key={i} title={t} style={{ overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" }}>
            {t}
          </span>
        ))}
        <span>timespan</span>
        <span>lag</span>
      </div>
      <div
        data-testid="tuples-scroll"
        style={{ position: "relative", height: viewHeight, overflowY: "auto" }}
        ref={(el) => {
          if (el && scrollTop === Number.MAX_SAFE_INTEGER) {
            el.scrollTop = top; // start at the newest rows
          }
        }}
        onScroll={(e) => {
          setScrollTop(e.currentTarget.scrollTop);
        }}
      >
        <div style={{ height: count * ROW_HEIGHT, position: "relative" }}>{rows}</div>
      </div>
      {tuples.evicted > 0 && (
        <div style={{ color: theme.muted }}>
          showing the newest {count} of {tuples.totalPushed} sets
        </div>
      )}
    </div>
  );
}

/** The tuples tab. */
export const tuplesView: PanelView = {
  id: "tuples",
  label: "tuples",
  scrolls: false,
  render: (p) => <TuplesTable tuples={p.store.tuples} topics={p.topics} baseSec={p.store.baseSec} theme={p.theme} height={p.height} />,
};
