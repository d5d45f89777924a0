import type { ReactElement } from "react";

import { FitCanvas, type Size } from "./FitCanvas";
import type { PanelView, ViewProps } from "./PanelView";
import { packLines } from "./canvas";
import { valueRange } from "./valueRange";
import type { FusedPose } from "../engine/engineTypes";
import type { RingBuffer } from "../state/RingBuffer";

/** Extent of a fused trajectory in space and time, or undefined when it is empty. */
export interface TrajectoryExtent {
  readonly minX: number;
  readonly maxX: number;
  readonly minY: number;
  readonly maxY: number;
  readonly minZ: number;
  readonly maxZ: number;
  /** Relative ns. */
  readonly firstStamp: number;
  readonly lastStamp: number;
}

/** The extent of the poses (stamps are in order, so first and last bound the time). */
export function trajectoryExtent(poses: RingBuffer<FusedPose>): TrajectoryExtent | undefined {
  if (poses.size === 0) {
    return undefined;
  }
  const [minX, maxX] = valueRange([poses], (p) => p.x);
  const [minY, maxY] = valueRange([poses], (p) => p.y);
  const [minZ, maxZ] = valueRange([poses], (p) => p.z);
  return { minX, maxX, minY, maxY, minZ, maxZ, firstStamp: poses.at(0)!.stamp, lastStamp: poses.last()!.stamp };
}

/**
 * A linear map of [lo, hi] onto the pixel interval [from, to] (`to` < `from` for an upward axis);
 * a degenerate interval maps to its middle.
 */
export function axis(lo: number, hi: number, from: number, to: number): (v: number) => number {
  const span = hi - lo;
  if (!(span > 1e-9)) {
    return () => (from + to) / 2;
  }
  return (v) => from + ((v - lo) / span) * (to - from);
}

const PAD = 24;
/** Line height of the view's labels (11 px font). */
const LINE = 14;
const deg = (rad: number): string => `${((rad * 180) / Math.PI).toFixed(1)}°`;

/**
 * The fused 3D trajectory (the fusion's Odometry3D publisher pose after each cycle): a top view
 * (x/y, equal axes) above the height z over time, with the latest pose's position and attitude.
 * A 2D fusion config shows its path with z = 0.
 */
export function Trajectory3DView(props: { fused: RingBuffer<FusedPose> } & Pick<ViewProps, "theme" | "width" | "height" | "version">): ReactElement {
  const { fused, theme, version } = props;
  const extent = trajectoryExtent(fused);
  // Drawn at the measured size of the view's room (redrawn on resize), so that the height curve
  // and the latest-pose line stay above the panel's bottom edge.
  const draw = (ctx: CanvasRenderingContext2D, size: Size): void => {
    const { width, height } = size;
    const e = trajectoryExtent(fused);
    if (!e) {
      ctx.fillStyle = theme.muted;
      ctx.fillText("No fused poses yet (the config needs a fusion section).", 10, 20);
      return;
    }
    const last = fused.last()!;
    // The latest pose under the height curve, on two lines where one does not fit (a narrow panel).
    const latest = packLines(
      [
        `latest: x ${last.x.toFixed(2)}, y ${last.y.toFixed(2)}, z ${last.z.toFixed(2)} m;`,
        `roll ${deg(last.roll)}, pitch ${deg(last.pitch)}, yaw ${deg(last.yaw)}`,
        `(${fused.size} poses)`,
      ],
      width - 20,
      (text) => ctx.measureText(text).width,
    );
    const below = PAD + LINE * (latest.length - 1);
    const split = Math.max(PAD * 3, Math.round(height * 0.62));
    // Top view, equal axes, centred in the upper part.
    const topH = split - 2 * PAD;
    const topW = width - 2 * PAD;
    const scale = Math.min(topW / Math.max(1e-6, e.maxX - e.minX), topH / Math.max(1e-6, e.maxY - e.minY));
    const cx = PAD + (topW - (e.maxX - e.minX) * scale) / 2;
    const cy = PAD + (topH - (e.maxY - e.minY) * scale) / 2;
    const px = (x: number): number => cx + (x - e.minX) * scale;
    const py = (y: number): number => cy + (e.maxY - y) * scale;
    // Height over time in the lower part.
    const ht = axis(e.firstStamp, e.lastStamp, PAD, width - PAD);
    const hz = axis(e.minZ, e.maxZ, height - below, split + PAD / 2);
    const line = (x: (i: number) => number, y: (i: number) => number): void => {
      ctx.beginPath();
      for (let i = 0; i < fused.size; i++) {
        if (i === 0) {
          ctx.moveTo(x(i), y(i));
        } else {
          ctx.lineTo(x(i), y(i));
        }
      }
      ctx.stroke();
    };
    ctx.strokeStyle = theme.fused;
    ctx.lineWidth = 2;
    line((i) => px(fused.at(i)!.x), (i) => py(fused.at(i)!.y));
    line((i) => ht(fused.at(i)!.stamp), (i) => hz(fused.at(i)!.z));
    ctx.fillStyle = theme.fused;
    for (const [x, y] of [
      [px(last.x), py(last.y)],
      [ht(last.stamp), hz(last.z)],
    ] as const) {
      ctx.beginPath();
      ctx.arc(x, y, 4, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.strokeStyle = theme.border;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, split);
    ctx.lineTo(width, split);
    ctx.stroke();
    ctx.fillStyle = theme.muted;
    ctx.fillText(`top view ${(e.maxX - e.minX).toFixed(1)} m × ${(e.maxY - e.minY).toFixed(1)} m`, 10, 16);
    ctx.fillText(`height z over time: ${e.minZ.toFixed(2)} … ${e.maxZ.toFixed(2)} m`, 10, split + 14);
    ctx.fillStyle = theme.text;
    latest.forEach((text, i) => {
      ctx.fillText(text, 10, height - 6 - LINE * (latest.length - 1 - i));
    });
  };
  return (
    <FitCanvas
      fallback={{ width: props.width, height: props.height }}
      background={theme.panel}
      draw={draw}
      deps={[fused, theme, version]}
      attrs={{ "data-testid": "trajectory-3d", "data-fused": fused.size, "data-z-range": extent ? `${extent.minZ.toFixed(3)} ${extent.maxZ.toFixed(3)}` : "" }}
    />
  );
}

/** The 3D trajectory tab. */
export const trajectory3DView: PanelView = {
  id: "trajectory-3d",
  label: "3D trajectory",
  scrolls: false,
  render: (p) => <Trajectory3DView fused={p.store.fusedPoses} theme={p.theme} width={p.width} height={p.height} version={p.version} />,
};
