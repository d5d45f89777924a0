import { useMemo, type ReactElement } from "react";

import { FitCanvas, type Size } from "./FitCanvas";
import type { PanelView, ViewProps } from "./PanelView";
import { valueRange } from "./valueRange";
import type { Pose2D } from "../engine/engineTypes";
import { RingBuffer } from "../state/RingBuffer";
import { alignToStart, poseAt, startGap, type RawPlacement, type StartAnchor } from "../state/startAlignment";

/** Bounds of several pose sets with equal x/y scale ([minX, minY, maxX, maxY]), or undefined. */
export function poseBounds(sets: readonly RingBuffer<Pose2D>[]): [number, number, number, number] | undefined {
  const [minX, maxX] = valueRange(sets, (p) => p.x);
  const [minY, maxY] = valueRange(sets, (p) => p.y);
  return minX <= maxX ? [minX, minY, maxX, maxY] : undefined;
}

/** Start gaps below this (m) are not worth a word: odometry and the ignition pose agree. */
const NOTABLE_GAP = 1;

/** A distance for the tab's text: metres, or kilometres from 1 km (frames such as UTM lie megametres apart). */
export function distanceText(metres: number): string {
  return metres >= 1000 ? `${(metres / 1000).toFixed(1)} km` : `${metres.toFixed(1)} m`;
}

/** The raw track as drawn: `raw` itself, or each pose moved by the start alignment (when known). */
export function shownRaw(raw: RingBuffer<Pose2D>, anchor: StartAnchor | undefined, placement: RawPlacement): RingBuffer<Pose2D> {
  if (placement === "as-recorded" || anchor == undefined || raw.size === 0) {
    return raw;
  }
  const align = alignToStart(anchor);
  const out = new RingBuffer<Pose2D>(raw.size);
  for (let i = 0; i < raw.size; i++) {
    out.push(align(raw.at(i)!));
  }
  return out;
}

/** The dash pattern of the n-th raw track (solid first), so that several odometry inputs stay apart. */
const RAW_DASHES: readonly (readonly number[])[] = [[], [8, 4], [2, 3], [8, 3, 2, 3]];

/**
 * Raw odometry (one track per input that carries it) and the fused trajectory, top-down, equal
 * axes, centred in the room the panel gives the view (measured, redrawn on resize), so that the
 * whole path, its end markers and the scale label are always in view. Once a raw track and the
 * track it is compared with share a stamp (`anchors`), a check box moves each raw track rigidly so
 * that it starts where that one starts, to compare their shapes: with fusion the fused track
 * (fuse started from its ignition pose away from where the robot's odometry was), without it the
 * first odometry input's (odometry sources seldom share a frame).
 */
export function TrajectoryView(
  props: {
    /** Raw odometry by input slot. */
    raw: ReadonlyMap<number, RingBuffer<Pose2D>>;
    fused: RingBuffer<Pose2D>;
    /** Where each raw track meets the track it is compared with (see `ViewStore.startAnchors`), by input slot. */
    anchors: ReadonlyMap<number, StartAnchor>;
    /** Input topics in slot order (the legend's names). */
    topics: readonly string[];
    /** Without fusion, the slot whose track the others are aligned to; undefined with fusion. */
    reference: number | undefined;
    placement: RawPlacement;
    setPlacement: (placement: RawPlacement) => void;
  } & Pick<ViewProps, "theme" | "width" | "height" | "version">,
): ReactElement {
  const { fused, anchors, topics, reference, placement, setPlacement, theme, width, height, version } = props;
  const aligned = placement === "start-aligned";
  const topicOf = (slot: number): string => topics[slot] ?? `slot ${slot}`;
  const target = reference == undefined ? "the fused start" : `${topicOf(reference)}'s start`;
  const slots = [...props.raw.keys()].sort((a, b) => a - b);
  // Rebuilt when the store changes (`version`), not on every render.
  const tracks = useMemo(
    () => slots.map((slot) => ({ slot, poses: shownRaw(props.raw.get(slot)!, anchors.get(slot), placement) })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.raw, anchors, placement, version],
  );
  const rawCount = tracks.reduce((n, t) => n + t.poses.size, 0);
  const moved = tracks.some((t) => t.poses !== props.raw.get(t.slot));
  // The first anchored track: its gap is the one the tab states, and (as drawn) the one exposed
  // for tests: 0 m when aligned, the start gap otherwise.
  const first = tracks.find((t) => anchors.has(t.slot));
  const anchor = first && anchors.get(first.slot);
  const rawAtStart = first && anchor && poseAt(first.poses, anchor.target.stamp);
  const shownGap = anchor && rawAtStart ? startGap({ raw: rawAtStart, target: anchor.target }) : undefined;
  const draw = (ctx: CanvasRenderingContext2D, size: Size): void => {
    const b = poseBounds([...tracks.map((t) => t.poses), fused]);
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
    const line = (ring: RingBuffer<Pose2D>, color: string, dash: readonly number[]): void => {
      if (ring.size === 0) {
        return;
      }
      ctx.strokeStyle = color;
      ctx.lineWidth = 2;
      ctx.setLineDash(dash);
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
      ctx.setLineDash([]);
      const last = ring.last()!;
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(px(last.x), py(last.y), 4, 0, 2 * Math.PI);
      ctx.fill();
    };
    tracks.forEach((t, i) => {
      line(t.poses, theme.raw, RAW_DASHES[i % RAW_DASHES.length]!);
    });
    line(fused, theme.fused, []);
    ctx.fillStyle = theme.raw;
    const counts =
      tracks.length > 1
        ? `: ${tracks.map((t, i) => `${topicOf(t.slot)} (${t.poses.size}${RAW_DASHES[i % RAW_DASHES.length]!.length === 0 ? ", solid" : ", dashed"})`).join(", ")}`
        : ` (${rawCount})`;
    // Without fusion the second line, otherwise the fused track's, says what the tracks are aligned to.
    ctx.fillText(`raw odometry${counts}${moved && reference == undefined ? `, aligned to ${target}` : ""}`, 10, 16);
    if (reference == undefined) {
      ctx.fillStyle = theme.fused;
      ctx.fillText(`fused (${fused.size})`, 10, 30);
    } else if (moved) {
      ctx.fillText(`aligned to ${target}`, 10, 30);
    }
    ctx.fillStyle = theme.muted;
    ctx.fillText(`${distanceText(maxX - minX)} × ${distanceText(maxY - minY)}`, 10, size.height - 6);
  };
  const gap = anchor && startGap(anchor);
  return (
    <div style={{ display: "flex", flexDirection: "column", height: "100%" }}>
      {anchor && gap != undefined && (
        <div style={{ fontSize: 12, padding: "0 0 4px" }}>
          <label>
            <input
              type="checkbox"
              data-testid="trajectory-align"
              checked={aligned}
              onChange={(e) => {
                setPlacement(e.target.checked ? "start-aligned" : "as-recorded");
              }}
            />{" "}
            {reference == undefined ? "align raw odometry to the fused start" : `align the other odometry to ${target}`}
          </label>
          {(aligned || gap >= NOTABLE_GAP) && (
            <span style={{ color: theme.muted }}>
              {" "}
              ({reference == undefined ? (aligned ? "moved" : "it starts") : `${topicOf(first.slot)} ${aligned ? "moved" : "starts"}`} {distanceText(gap)}{" "}
              {aligned ? "onto it" : "away"}:{" "}
              {reference == undefined ? "fuse starts from its initial state, not from where the odometry is" : "the odometry frames have different origins"})
            </span>
          )}
        </div>
      )}
      <div style={{ flex: 1, minHeight: 0 }}>
        <FitCanvas
          fallback={{ width, height }}
          background={theme.panel}
          draw={draw}
          deps={[tracks, fused, theme, version, aligned]}
          attrs={{
            "data-testid": "trajectory",
            "data-raw": rawCount,
            "data-raw-tracks": tracks.length,
            "data-fused": fused.size,
            "data-aligned": String(moved),
            "data-start-gap": shownGap == undefined ? "" : shownGap.toFixed(3),
          }}
        />
      </div>
    </div>
  );
}

/** The trajectory tab. */
export const trajectoryView: PanelView = {
  id: "trajectory",
  label: "trajectory",
  scrolls: false,
  render: (p) => (
    <TrajectoryView
      raw={p.store.rawTracks}
      fused={p.store.fusedPoses}
      anchors={p.store.startAnchors}
      topics={p.topics}
      reference={p.store.referenceSlot}
      placement={p.trajectory.rawPlacement}
      setPlacement={p.trajectory.setRawPlacement}
      theme={p.theme}
      width={p.width}
      height={p.height}
      version={p.version}
    />
  ),
};
