import { useLayoutEffect, useRef, useState, type ReactElement } from "react";

import type { PanelView, ViewProps } from "./PanelView";
import { fmtMs } from "./format";
import type { TupleRow } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

const ROW_HEIGHT = 20;
const OVERSCAN = 10;
const GAP = 8;

/** Which rows of a virtualized list are rendered for a scroll position (pure; exported for tests). */
export function visibleRange(scrollTop: number, viewHeight: number, count: number, rowHeight = ROW_HEIGHT): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + viewHeight) / rowHeight) + OVERSCAN);
  return [first, Math.max(first, last)];
}

/**
 * Whether a scroll position shows the last row (within one row): the table then follows new rows;
 * scrolled up, it stays where the user put it.
 */
export function isAtBottom(scrollTop: number, viewHeight: number, contentHeight: number, rowHeight = ROW_HEIGHT): boolean {
  return scrollTop + viewHeight >= contentHeight - rowHeight;
}

/**
 * Column widths (px) of the table for `slots` stamp columns in `width` px: index, one column per
 * input, timespan, lag. The fixed columns shrink first; stamp columns share what is left and never
 * go below 48 px, so the row always fits `width` unless that many columns cannot (each cell
 * clips its text with an ellipsis and shows it whole on hover).
 */
export function tupleColumns(slots: number, width: number): { index: number; stamp: number; timespan: number; lag: number } {
  const narrow = width < 120 * slots + 260;
  const index = narrow ? 36 : 60;
  const ms = narrow ? 60 : 90;
  const gaps = GAP * (slots + 2);
  const stamp = Math.max(48, Math.floor((width - index - 2 * ms - gaps) / Math.max(1, slots)));
  return { index, stamp, timespan: ms, lag: ms };
}

/**
 * The CSS grid template of the table's header and rows for `slots` inputs in `width` px: always
 * valid (no `repeat(0, …)`, which the browser rejects whole, stacking the columns), and its fixed
 * columns (index, timespan, lag) plus gaps fit any width from 200 px, the stamp columns sharing
 * what is left (they clip their text), so the lag column is never cut.
 */
export function tupleGridTemplate(slots: number, width: number): string {
  const c = tupleColumns(slots, width);
  const tiny = width < 320;
  const index = tiny ? 28 : c.index;
  const ms = tiny ? 44 : c.timespan;
  const stamps = slots > 0 ? ` repeat(${slots}, minmax(0, 1fr))` : "";
  return `${index}px${stamps} ${ms}px ${ms}px`;
}

const clip = { overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" } as const;

/**
 * The synchronized tuples, newest last, virtualized: only the rows in view are in the DOM, so
 * the table stays fast at its cap (ViewStore CAPS.tuples rows). Stamps are in the app's time
 * format. It follows new rows while scrolled to the bottom; scrolled up, it stays put.
 */
export function TuplesTable(
  props: { tuples: RingBuffer<TupleRow> } & Pick<ViewProps, "topics" | "formatStamp" | "theme" | "width" | "height">,
): ReactElement {
  const { tuples, topics, formatStamp, theme, width, height } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const follow = useRef(true);
  const count = tuples.size;
  const viewHeight = Math.max(60, height - 24);
  const contentHeight = count * ROW_HEIGHT;
  const bottom = Math.max(0, contentHeight - viewHeight);
  const top = follow.current ? bottom : Math.min(scrollTop, bottom);
  const [first, last] = visibleRange(top, viewHeight, count);
  const cols = tupleGridTemplate(topics.length, width);

  // Keep the newest row in view while following (the rows arrive between renders).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && follow.current && el.scrollTop !== bottom) {
      el.scrollTop = bottom;
    }
  }, [bottom]);

  const rows: ReactElement[] = [];
  for (let i = first; i < last; i++) {
    const t = tuples.at(i)!;
    rows.push(
      <div
        key={t.index}
        data-testid="tuple-row"
        style={{ position: "absolute", top: i * ROW_HEIGHT, left: 0, right: 0, height: ROW_HEIGHT, display: "grid", gridTemplateColumns: cols, gap: GAP, fontVariantNumeric: "tabular-nums" }}
      >
        <span style={{ ...clip, color: theme.muted }}>{t.index}</span>
        {t.stamps.map((s, slot) => {
          const text = formatStamp(s);
          return (
            <span key={slot} title={text} style={clip}>
              {text}
            </span>
          );
        })}
        <span style={clip}>{fmtMs(t.timespan)}</span>
        <span style={clip}>{fmtMs(t.lag)}</span>
      </div>,
    );
  }
  return (
    <div style={{ fontSize: 12 }}>
      <div style={{ display: "grid", gridTemplateColumns: cols, gap: GAP, fontWeight: 600, height: 24, alignItems: "center", borderBottom: `1px solid ${theme.border}` }}>
        <span>#</span>
        {topics.map((t, i) => (
          <span key={i} title={t} style={clip}>
            {t}
          </span>
        ))}
        <span style={clip}>timespan</span>
        <span style={clip}>lag</span>
      </div>
      <div
        ref={scroller}
        data-testid="tuples-scroll"
        data-following={follow.current}
        style={{ position: "relative", height: viewHeight, overflowY: "auto", overflowX: "hidden" }}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = isAtBottom(el.scrollTop, viewHeight, contentHeight);
          setScrollTop(el.scrollTop);
        }}
      >
        <div style={{ height: contentHeight, position: "relative" }}>{rows}</div>
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
  render: (p) => <TuplesTable tuples={p.store.tuples} topics={p.topics} formatStamp={p.formatStamp} theme={p.theme} width={p.width} height={p.height} />,
};
