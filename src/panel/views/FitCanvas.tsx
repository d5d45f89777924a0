import { useEffect, useRef, useState, type ReactElement } from "react";

import { prepareCanvas } from "./canvas";

/** A size in CSS pixels. */
export interface Size {
  readonly width: number;
  readonly height: number;
}

/**
 * The size to draw at: the canvas box as measured (floored to whole pixels, at least 1), or the
 * panel's estimate `fallback` before the first measurement.
 */
export function canvasSize(measured: Size | undefined, fallback: Size): Size {
  if (measured == undefined) {
    return fallback;
  }
  return { width: Math.max(1, Math.floor(measured.width)), height: Math.max(1, Math.floor(measured.height)) };
}

/**
 * A canvas filling the room its parent gives it (the view area below the header, whose height the
 * panel can only estimate: banners and wrapped tabs take more), redrawn with `draw` at that size
 * on every resize and whenever `deps` change. The canvas is absolutely positioned so that it never
 * props its parent open: the panel can shrink, and the drawing follows.
 */
export function FitCanvas(props: {
  readonly fallback: Size;
  readonly background: string;
  readonly draw: (ctx: CanvasRenderingContext2D, size: Size) => void;
  readonly deps: readonly unknown[];
  readonly attrs?: Readonly<Record<string, string | number>>;
}): ReactElement {
  const { fallback, background, draw, deps, attrs } = props;
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [measured, setMeasured] = useState<Size | undefined>(undefined);
  useEffect(() => {
    const el = box.current;
    if (!el) {
      return;
    }
    const obs = new ResizeObserver(() => {
      setMeasured({ width: el.clientWidth, height: el.clientHeight });
    });
    obs.observe(el);
    return () => {
      obs.disconnect();
    };
  }, []);
  const size = canvasSize(measured, fallback);
  useEffect(() => {
    const ctx = prepareCanvas(canvas.current, size.width, size.height, background);
    if (ctx) {
      draw(ctx, size);
    }
    // `draw` is a new closure every render; `deps` says when its inputs change.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [size.width, size.height, background, ...deps]);
  return (
    <div ref={box} style={{ position: "relative", width: "100%", height: "100%", overflow: "hidden" }}>
      <canvas ref={canvas} {...attrs} style={{ position: "absolute", left: 0, top: 0, width: size.width, height: size.height, display: "block" }} />
    </div>
  );
}
