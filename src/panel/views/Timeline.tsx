import { useEffect, useRef, useState, type ReactElement } from "react";

import type { PanelView } from "./PanelView";
import { prepareCanvas } from "./canvas";
import { reasonColor, reasonOfCode, type Theme } from "./theme";
import type { SlotMarks } from "../state/ViewStore";

/** Visible window of the timeline in relative ns. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
}

/** The full extent of the marks (relative ns), or undefined when there are none. */
export function marksExtent(marks: readonly SlotMarks[]): TimeWindow | undefined {
  let from = Infinity;
  let to = -Infinity;
  for (const m of marks) {
    for (const ring of [m.received, m.matched, m.droppedStamps]) {
      if (ring.size > 0) {
        from = Math.min(from, ring.at(0)!);
        to = Math.max(to, ring.last()!);
      }
    }
  }
  return from <= to ? { from, to: to === from ? from + 1e9 : to } : undefined;
}

/** Zooms `w` by `factor` (< 1 = in) around the fraction `at` of its width. */
export function zoomWindow(w: TimeWindow, factor: number, at: number): TimeWindow {
  const span = (w.to - w.from) * factor;
  const pivot = w.from + (w.to - w.from) * at;
  return { from: pivot - span * at, to: pivot + span * (1 - at) };
}

const ROW = 28;
const LABEL = 170;

/**
 * One row per input topic: every message received (grey), matched into a set (green) or dropped
 * (coloured by reason). Wheel zooms, drag pans, double-click resets, click seeks (when the host
 * can seek). Drawn on a canvas; cost is proportional to the marks held (bounded by ViewStore CAPS).
 */
export function Timeline(props: {
  marks: readonly SlotMarks[];
  topics: readonly string[];
  theme: Theme;
  scheme: "dark" | "light" | undefined;
  width: number;
  version: number;
  onSeek?: (stamp: number) => void;
}): ReactElement {
  const { marks, topics, theme, scheme, width, version, onSeek } = props;
  const canvas = useRef<HTMLCanvasElement>(null);
  const [window, setWindow] = useState<TimeWindow | undefined>();
  const drag = useRef<{ x: number; w: TimeWindow; moved: boolean } | undefined>(undefined);
  const height = Math.max(1, topics.length) * ROW + 28;
  const extent = marksExtent(marks);
  const view = window ?? extent;

  useEffect(() => {
    const ctx = prepareCanvas(canvas.current, width, height, theme.panel);
    if (!ctx) {
      return;
    }
    const plotW = Math.max(10, width - LABEL - 8);
    topics.forEach((topic, slot) => {
      const y = slot * ROW;
      ctx.fillStyle = theme.text;
      ctx.fillText(topic.length > 26 ? `…${topic.slice(-25)}` : topic, 4, y + 17);
      ctx.strokeStyle = theme.border;
      ctx.beginPath();
      ctx.moveTo(LABEL, y + ROW - 0.5);
      ctx.lineTo(width, y + ROW - 0.5);
      ctx.stroke();
      const m = marks[slot];
      if (!m || !view) {
        return;
      }
      const x = (s: number): number => LABEL + ((s - view.from) / (view.to - view.from)) * plotW;
      const tick = (ring: { size: number; at(i: number): number | undefined }, color: string, y0: number, h: number): void => {
        ctx.fillStyle = color;
        let lastPx = -1;
        for (let i = 0; i < ring.size; i++) {
          const px = Math.round(x(ring.at(i)!));
          if (px < LABEL || px > width || px === lastPx) {
            continue;
          }
          lastPx = px;
          ctx.fillRect(px, y0, 1, h);
        }
      };
      // Upper half: received (grey) overdrawn by matched (green); lower half: drops by reason.
      const half = (ROW - 6) / 2;
      tick(m.received, theme.received, y + 3, half);
      tick(m.matched, theme.matched, y + 3, half);
      let lastPx = -1;
      for (let i = 0; i < m.droppedStamps.size; i++) {
        const px = Math.round(x(m.droppedStamps.at(i)!));
        if (px < LABEL || px > width || px === lastPx) {
          continue;
        }
        lastPx = px;
        ctx.fillStyle = reasonColor(reasonOfCode(m.droppedCodes.at(i)!), scheme);
        ctx.fillRect(px, y + 3 + half, 1, half);
      }
    });
    if (view) {
      ctx.fillStyle = theme.muted;
      const span = (view.to - view.from) / 1e9;
      ctx.fillText(`${span.toFixed(span < 10 ? 3 : 1)} s shown · wheel zoom · drag pan · double-click reset${onSeek ? " · click seeks" : ""}`, 4, height - 6);
    }
    // Legend: matched plus every drop reason present.
    const reasons = new Set<number>();
    for (const m of marks) {
      for (let i = 0; i < m.droppedCodes.size; i++) {
        reasons.add(m.droppedCodes.at(i)!);
      }
    }
    let lx = Math.max(LABEL, width - 140 * (reasons.size + 1));
    const legend = (color: string, label: string): void => {
      ctx.fillStyle = color;
      ctx.fillRect(lx, height - 14, 10, 10);
      ctx.fillStyle = theme.text;
      ctx.fillText(label, lx + 14, height - 5);
      lx += 140;
    };
    legend(theme.matched, "matched");
    for (const code of [...reasons].sort((a, b) => a - b)) {
      legend(reasonColor(reasonOfCode(code), scheme), reasonOfCode(code));
    }
  }, [marks, topics, theme, scheme, width, height, view, version, onSeek]);

  const fractionAt = (clientX: number): number => {
    const rect = canvas.current!.getBoundingClientRect();
    return Math.min(1, Math.max(0, (clientX - rect.left - LABEL) / Math.max(10, rect.width - LABEL - 8)));
  };

  return (
    <canvas
      ref={canvas}
      data-testid="timeline"
      style={{ width, height, cursor: "crosshair", display: "block" }}
      onWheel={(e) => {
        if (view) {
          setWindow(zoomWindow(view, e.deltaY > 0 ? 1.25 : 0.8, fractionAt(e.clientX)));
        }
      }}
      onMouseDown={(e) => {
        if (view) {
          drag.current = { x: e.clientX, w: view, moved: false };
        }
      }}
      onMouseMove={(e) => {
        const d = drag.current;
        if (d && canvas.current) {
          const dx = e.clientX - d.x;
          if (Math.abs(dx) > 2) {
            d.moved = true;
            const perPx = (d.w.to - d.w.from) / Math.max(10, canvas.current.getBoundingClientRect().width - LABEL - 8);
            setWindow({ from: d.w.from - dx * perPx, to: d.w.to - dx * perPx });
          }
        }
      }}
      onMouseUp={(e) => {
        const d = drag.current;
        drag.current = undefined;
        if (d && !d.moved && view && onSeek) {
          onSeek(view.from + (view.to - view.from) * fractionAt(e.clientX));
        }
      }}
      onDoubleClick={() => {
        setWindow(undefined);
      }}
    />
  );
}

/** The timeline tab. */
export const timelineView: PanelView = {
  id: "timeline",
  label: "timeline",
  scrolls: true,
  render: (p) => <Timeline marks={p.store.marks} topics={p.topics} theme={p.theme} scheme={p.scheme} width={p.width} version={p.version} onSeek={p.seek} />,
};
