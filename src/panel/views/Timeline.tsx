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

/** One labelled tick of the time axis: its position (relative ns) and its label. */
export interface AxisTick {
  readonly stamp: number;
  readonly label: string;
}

/**
 * Ticks for a time axis over `w` (relative ns) on a plot `plotWidth` px wide: a 1-2-5 step giving
 * at least ~80 px between labels, every tick inside the window, labelled in seconds since
 * `origin` ("+12 s", "+12.5 s"; as many decimals as the step needs).
 */
export function axisTicks(w: TimeWindow, plotWidth: number, origin: number): AxisTick[] {
  const span = w.to - w.from;
  if (!(span > 0) || !(plotWidth > 0)) {
    return [];
  }
  const wanted = Math.max(1, Math.floor(plotWidth / 80));
  const raw = span / wanted;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const decimals = Math.max(0, Math.ceil(9 - Math.log10(step) - 1e-9));
  const ticks: AxisTick[] = [];
  for (let k = Math.ceil((w.from - origin) / step); origin + k * step <= w.to && ticks.length <= wanted + 1; k++) {
    const rel = k * step;
    ticks.push({ stamp: origin + rel, label: `${rel < 0 ? "−" : "+"}${(Math.abs(rel) / 1e9).toFixed(decimals)} s` });
  }
  return ticks;
}

const ROW = 28;
const LABEL = 170;
/** Height of the axis (ticks and labels) below the rows, and of the caption below it. */
const AXIS = 18;
const CAPTION = 28;

/**
 * One row per input topic: every message received (grey), matched into a set (green) or dropped
 * (coloured by reason), over a time axis in seconds since the first mark, with the playhead (the
 * app's current time) as a line. Hovering shows the time under the cursor in the app's format and
 * previews it in the app's own timeline; wheel zooms, drag pans, double-click resets, click seeks
 * (when the host can seek). Drawn on a canvas; cost is proportional to the marks held (bounded by
 * ViewStore CAPS).
 */
export function Timeline(props: {
  marks: readonly SlotMarks[];
  topics: readonly string[];
  theme: Theme;
  scheme: "dark" | "light" | undefined;
  width: number;
  version: number;
  /** The app's current time (relative ns), drawn as the playhead. */
  playhead?: number | undefined;
  /** Formats a relative stamp in the app's time format (the hover readout). */
  formatStamp?: (stamp: number) => string;
  onSeek?: ((stamp: number) => void) | undefined;
  /** Previews a time in the app's timeline (undefined clears it). */
  onPreview?: ((stamp: number | undefined) => void) | undefined;
}): ReactElement {
  const { marks, topics, theme, scheme, width, version, playhead, formatStamp, onSeek, onPreview } = props;
  const canvas = useRef<HTMLCanvasElement>(null);
  const [window, setWindow] = useState<TimeWindow | undefined>();
  const [hover, setHover] = useState<number | undefined>();
  const drag = useRef<{ x: number; w: TimeWindow; moved: boolean } | undefined>(undefined);
  const rowsHeight = Math.max(1, topics.length) * ROW;
  const height = rowsHeight + AXIS + CAPTION;
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
      const x = (s: number): number => LABEL + ((s - view.from) / (view.to - view.from)) * plotW;
      // Time axis: seconds since the first mark.
      ctx.fillStyle = theme.muted;
      ctx.strokeStyle = theme.border;
      ctx.fillText("s since first", 4, rowsHeight + 13);
      for (const tick of axisTicks(view, plotW, extent?.from ?? view.from)) {
        const px = Math.round(x(tick.stamp)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(px, rowsHeight);
        ctx.lineTo(px, rowsHeight + 4);
        ctx.stroke();
        ctx.fillText(tick.label, Math.min(px - 12, width - 60), rowsHeight + 14);
      }
      const line = (stamp: number, color: string): void => {
        const px = Math.round(x(stamp)) + 0.5;
        if (px >= LABEL && px <= width) {
          ctx.strokeStyle = color;
          ctx.beginPath();
          ctx.moveTo(px, 0);
          ctx.lineTo(px, rowsHeight);
          ctx.stroke();
        }
      };
      if (playhead != undefined) {
        line(playhead, theme.accent);
      }
      const span = (view.to - view.from) / 1e9;
      ctx.fillStyle = theme.muted;
      if (hover != undefined) {
        line(hover, theme.muted);
        ctx.fillStyle = theme.text;
        ctx.fillText(formatStamp ? formatStamp(hover) : `${(hover / 1e9).toFixed(3)} s`, 4, rowsHeight + AXIS + 12);
      } else {
        ctx.fillText(`${span.toFixed(span < 10 ? 3 : 1)} s shown · wheel zoom · drag pan · double-click reset${onSeek ? " · click seeks" : ""}`, 4, rowsHeight + AXIS + 12);
      }
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
  }, [marks, topics, theme, scheme, width, height, rowsHeight, view, extent?.from, version, playhead, hover, formatStamp, onSeek]);

  const fractionAt = (clientX: number): number => {
    const rect = canvas.current!.getBoundingClientRect();
    return Math.min(1, Math.max(0, (clientX - rect.left - LABEL) / Math.max(10, rect.width - LABEL - 8)));
  };

  return (
    <canvas
      ref={canvas}
      data-testid="timeline"
      data-playhead={playhead}
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
        if (view && !d) {
          const at = view.from + (view.to - view.from) * fractionAt(e.clientX);
          setHover(at);
          onPreview?.(at);
        }
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
      onMouseLeave={() => {
        drag.current = undefined;
        setHover(undefined);
        onPreview?.(undefined);
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
  render: (p) => <Timeline marks={p.store.marks} topics={p.topics} theme={p.theme} scheme={p.scheme} width={p.width} version={p.version} playhead={p.playhead} formatStamp={p.formatStamp} onSeek={p.seek} onPreview={p.preview} />,
};
