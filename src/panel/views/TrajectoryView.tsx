import type { ReactElement } from "react";

import { FitCanvas, type Size } from "./FitCanvas";
import type { PanelView, ViewProps } from "./PanelView";
import { valueRange } from "./valueRange";
import type { Pose2D } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

/** Bounds of several pose sets with equal x/y scale ([minX, minY, maxX, maxY]), or undefined. */
export function poseBounds(sets: readonly RingBuffer<Pose2D>[]): [number, number, number, number] | undefined {
  const [minX, maxX] = valueRange(sets, (p) => p.x);
  const [minY, maxY] = valueRange(sets, (p) => p.y);
  return minX <= maxX ? [minX, minY, maxX, maxY] : undefined;
}

/**
 * Raw odometry (from the input topics) and the fused trajectory, top-down, equal axes, centred in
 * the room the panel gives the view (measured, redrawn on resize), so that the whole path, its end
 * markers and the scale label are always in view.
 */
export function TrajectoryView(
  props: { raw: RingBuffer<Pose2D>; fused: RingBuffer<Pose2D> } & Pick<ViewProps, "theme" | "width" | "height" | "version">,
): ReactElement {
  const { raw, fused, theme, width, height, version } = props;
  const draw = (ctx: CanvasRenderingContext2D, size: Size): void => {
    const b = poseBounds([raw, fused]);
    if (!b) {
      ctx.fillStyle = theme.muted;
      ctx.fillText("No odometry (nav_msgs/Odometry) on the inputs and no fusion output yet.", 10, 20);
      return;
    }
    const [minX, minY, maxX, maxY] = b;
    // Room for the two legend lines above and the scale label below the path.
    const top = 40;
    const bottom = 22;
    const side = 12;
    const w = Math.max(1, size.width - 2 * side);
    const h = Math.max(1, size.height - top - bottom);
    const scale = Math.min(w / Math.max(1e-6, maxX - minX), h / Math.max(1e-6, maxY - minY));
    const ox = side + (w - (maxX - minX) * scale) / 2;
    const oy = top + (h - (maxY - minY) * scale) / 2;
    const px = (x: number): number => ox + (x - minX) * scale;
    const py = (y: number): number => oy + (maxY - y) * scale;
    const line = (ring: RingBuffer<Pose2D>, color: string): void => {
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
    line(raw, theme.raw);
    line(fused, theme.fused);
    ctx.fillStyle = theme.raw;
    ctx.fillText(`raw odometry (${raw.size})`, 10, 16);
    ctx.fillStyle = theme.fused;
    ctx.fillText(`fused (${fused.size})`, 10, 30);
    ctx.fillStyle = theme.muted;
    ctx.fillText(`${(maxX - minX).toFixed(1)} m × ${(maxY - minY).toFixed(1)} m`, 10, size.height - 6);
  };
  return (
    <FitCanvas
      fallback={{ width, height }}
      background={theme.panel}
      draw={draw}
      deps={[raw, fused, theme, version]}
      attrs={{ "data-testid": "trajectory", "data-raw": raw.size, "data-fused": fused.size }}
    />
  );
}

/** The trajectory tab. */
export const trajectoryView: PanelView = {
  id: "trajectory",
  label: "trajectory",
  scrolls: false,
  render: (p) => <TrajectoryView raw={p.store.rawPoses} fused={p.store.fusedPoses} theme={p.theme} width={p.width} height={p.height} version={p.version} />,
};
