import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { distanceText, poseBounds, shownRaw, TrajectoryView } from "./TrajectoryView";
import { themeFor } from "./theme";
import type { Pose2D } from "../engine/engineTypes";
import { RingBuffer } from "../state/RingBuffer";
import { startAnchor, trackAnchor, type RawPlacement } from "../state/startAlignment";

/** A robot 10 m along x and facing +y when fuse started at the origin facing +x, then 5 m ahead. */
function tracks(): { raw: RingBuffer<Pose2D>; fused: RingBuffer<Pose2D> } {
  const raw = new RingBuffer<Pose2D>(100);
  const fused = new RingBuffer<Pose2D>(100);
  for (let k = 0; k <= 5; k++) {
    raw.push({ stamp: k * 1e8, x: 10, y: k, yaw: Math.PI / 2 });
    fused.push({ stamp: k * 1e8, x: k, y: 0, yaw: 0 });
  }
  return { raw, fused };
}

/** The props every rendering here shares: the panel's frame and a placement setter nobody calls. */
const FRAME = { setPlacement: (): void => undefined, theme: themeFor("light"), width: 400, height: 300, version: 1 };

function render(placement: RawPlacement): string {
  const { raw, fused } = tracks();
  return renderToStaticMarkup(
    createElement(TrajectoryView, {
      raw: new Map([[1, raw]]),
      fused,
      anchors: new Map([[1, startAnchor(raw, fused.toArray())!]]),
      topics: ["/imu/data", "/odom"],
      reference: undefined,
      placement,
      ...FRAME,
    }),
  );
}

const attr = (html: string, name: string): string | undefined => new RegExp(`${name}="([^"]*)"`).exec(html)?.[1];

describe("TrajectoryView", () => {
  it("offers the alignment with how far apart the tracks start; drawn aligned, the raw track starts on the fused one", () => {
    const apart = render("as-recorded");
    expect(apart).toContain('data-testid="trajectory-align"');
    expect(apart).toContain("it starts 10.0 m away");
    expect(attr(apart, "data-aligned")).toBe("false");
    expect(attr(apart, "data-start-gap")).toBe("10.000");
    const together = render("start-aligned");
    expect(together).toContain("moved 10.0 m onto it");
    expect(attr(together, "data-aligned")).toBe("true");
    expect(attr(together, "data-start-gap")).toBe("0.000");
  });

  it("aligned, the raw track lies on the fused one (same bounds), turned by the start's yaw difference", () => {
    const { raw, fused } = tracks();
    const shown = shownRaw(raw, startAnchor(raw, fused.toArray()), "start-aligned");
    const [minX, minY, maxX, maxY] = poseBounds([shown])!;
    expect([minX, minY, maxX, maxY].map((v) => Math.abs(v) < 1e-12 ? 0 : v)).toEqual([0, 0, 5, 0]);
    expect(shown.last()!.yaw).toBeCloseTo(0, 12);
    // Not aligned (or no anchor yet): the raw ring itself.
    expect(shownRaw(raw, startAnchor(raw, fused.toArray()), "as-recorded")).toBe(raw);
    expect(shownRaw(raw, undefined, "start-aligned")).toBe(raw);
  });

  it("without raw odometry there is nothing to align: no check box", () => {
    const { fused } = tracks();
    const html = renderToStaticMarkup(
      createElement(TrajectoryView, { raw: new Map(), fused, anchors: new Map(), topics: [], reference: undefined, placement: "as-recorded", ...FRAME }),
    );
    expect(html).not.toContain("trajectory-align");
    expect(attr(html, "data-start-gap")).toBe("");
    expect(attr(html, "data-raw-tracks")).toBe("0");
  });

  it("draws each odometry input as a track of its own, aligned by its own anchor", () => {
    const { raw, fused } = tracks();
    const other = new RingBuffer<Pose2D>(100);
    for (let k = 0; k <= 5; k++) {
      other.push({ stamp: k * 1e8, x: -3, y: -k, yaw: -Math.PI / 2 });
    }
    const html = renderToStaticMarkup(
      createElement(TrajectoryView, {
        raw: new Map([
          [2, other],
          [1, raw],
        ]),
        fused,
        anchors: new Map([
          [1, startAnchor(raw, fused.toArray())!],
          [2, startAnchor(other, fused.toArray())!],
        ]),
        topics: ["/imu/data", "/odom", "/vo"],
        reference: undefined,
        placement: "start-aligned",
        ...FRAME,
      }),
    );
    expect(attr(html, "data-raw-tracks")).toBe("2");
    expect(attr(html, "data-raw")).toBe("12");
    expect(attr(html, "data-start-gap")).toBe("0.000");
    // Aligned by their own anchors, both tracks lie on the fused one.
    for (const track of [raw, other]) {
      const [minX, minY, maxX, maxY] = poseBounds([shownRaw(track, startAnchor(track, fused.toArray()), "start-aligned")])!;
      expect([minX, minY, maxX, maxY].map((v) => (Math.abs(v) < 1e-12 ? 0 : v))).toEqual([0, 0, 5, 0]);
    }
  });

  it("without fusion, offers to align the other odometry to the first input's start, naming both and the gap in km", () => {
    // Wheel odometry (slot 1) from the origin heading +x; visual odometry (slot 2) in a frame
    // 5,430 km away, heading +y; the same motion.
    const wheel = new RingBuffer<Pose2D>(100);
    const visual = new RingBuffer<Pose2D>(100);
    for (let k = 0; k <= 5; k++) {
      wheel.push({ stamp: k * 1e8, x: k, y: 0, yaw: 0 });
      visual.push({ stamp: k * 1e8, x: 5.43e6, y: 4.58e5 + k, yaw: Math.PI / 2 });
    }
    const view = (placement: RawPlacement): string =>
      renderToStaticMarkup(
        createElement(TrajectoryView, {
          raw: new Map([
            [1, wheel],
            [2, visual],
          ]),
          fused: new RingBuffer<Pose2D>(1),
          anchors: new Map([[2, trackAnchor(visual, wheel)!]]),
          topics: ["/imu", "/wheel_odometry", "/stereo_odometer/odometry"],
          reference: 1,
          placement,
          ...FRAME,
        }),
      );
    const apart = view("as-recorded");
    expect(apart).toContain("align the other odometry to /wheel_odometry&#x27;s start");
    expect(apart).toContain("/stereo_odometer/odometry starts 5449.3 km");
    expect(apart).not.toContain("fuse starts");
    expect(attr(apart, "data-start-gap")).toBe(Math.hypot(5.43e6, 4.58e5).toFixed(3));
    const together = view("start-aligned");
    expect(together).toContain("/stereo_odometer/odometry moved 5449.3 km");
    expect(attr(together, "data-aligned")).toBe("true");
    expect(attr(together, "data-start-gap")).toBe("0.000");
    // Aligned, the visual track lies on the wheel track.
    const [minX, minY, maxX, maxY] = poseBounds([shownRaw(visual, trackAnchor(visual, wheel), "start-aligned")])!;
    expect([minX, minY, maxX, maxY].map((v) => (Math.abs(v) < 1e-6 ? 0 : Math.round(v * 1e6) / 1e6))).toEqual([0, 0, 5, 0]);
  });

  it("writes distances in metres below 1 km, in kilometres from there", () => {
    expect(distanceText(8.34)).toBe("8.3 m");
    expect(distanceText(999.94)).toBe("999.9 m");
    expect(distanceText(1000)).toBe("1.0 km");
    expect(distanceText(5.4493e6)).toBe("5449.3 km");
  });
});
