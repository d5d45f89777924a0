import { useEffect, useRef, type ReactElement } from "react";

import type { PanelView, ViewProps } from "./PanelView";
import { prepareCanvas } from "./canvas";
import { valueRange } from "./valueRange";
import type { Pose2D } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

/** Bounds of several pose sets with equal x/y scale ([minX, minY, maxX, maxY]), or undefined. */
export function poseBounds(sets: readonly RingBuffer<Pose2D>[]): [number, number, number, number] | undefined {
  const [minX, maxX] = valueRange(sets, (p) => p.x);
  const [minY, maxY] = valueRange(sets, (p) => p.y);
  return minX <= maxX ? [minX, minY, maxX, maxY] : undefined;
}

/** Raw odometry (from the input topics) and the fused trajectory, top-down, equal axes. */
export function TrajectoryView(
  props: { raw: RingBuffer<Pose2D>; fused: RingBuffer<Pose2D> } & Pick<ViewProps, "theme" | "width" | "height" | "version">,
): ReactElement {
  const { raw, fused, theme, width, height, version } = props;
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const ctx = prepareCanvas(canvas.current, width, height, theme.panel);
    if (!ctx) {
      return;
    }
    const b = poseBounds([raw, fused]);
    if (!b) {
      ctx.fillStyle = theme.muted;
      ctx.fillText("No odometry (nav_msgs/Odometry) on the inputs and no fusion output yet.", 10, 20);
      return;
    }
    const [minX, minY, maxX, maxY] = b;
    const pad = 24;
    const scale = Math.min((width - 2 * pad) / Math.max(1e-6, maxX - minX), (height - 2 * pad) / Math.max(1e-6, maxY - minY));
    const px = (x: number): number => pad + (x - minX) * scale;
    const py = (y: number): number => height - pad - (y - minY) * scale;
    const draw = (ring: RingBuffer<Pose2D>, color: string): void => {
      if (ring.size === 0) {
        return;
      }
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      for (let i = 0; i < ring.size; i++) {
        const p = ring.at(i)!;
        if (i === 0) {
          ctx.moveTo(px(p.x), py(p.y));
        } else {
          ctx.lineTo(px(p.x), py(p.y));
        }
      }
      ctx.stroke();
      const last = ring.last()!;
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(px(last.x), py(last.y), 4, 0, 2 * Math.PI);
      ctx.fill();
    };
    draw(raw, theme.raw);
    draw(fused, theme.fused);
    ctx.fillStyle = theme.raw;
    ctx.fillText(`raw odometry (${raw.size})`, 10, 16);
    ctx.fillStyle = theme.fused;
    ctx.fillText(`fused (${fused.size})`, 10, 30);
    ctx.fillStyle = theme.muted;
    ctx.fillText(`${(maxX - minX).toFixed(1)} m × ${(maxY - minY).toFixed(1)} m`, 10, height - 8);
  }, [raw, fused, theme, width, height, version]);
  return <canvas ref={canvas} data-testid="trajectory" data-raw={raw.size} data-fused={fused.size} style={{ width, height, display: "block" }} />;
}

/** The trajectory tab. */
export const trajectoryView: PanelView = {
  id: "trajectory",
  label: "trajectory",
  scrolls: true,
  render: (p) => <TrajectoryView raw={p.store.rawPoses} fused={p.store.fusedPoses} theme={p.theme} width={p.width} height={p.height} version={p.version} />,
};
