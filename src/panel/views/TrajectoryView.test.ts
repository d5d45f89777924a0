import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { poseBounds, shownRaw, TrajectoryView } from "./TrajectoryView";
import { themeFor } from "./theme";
import type { Pose2D } from "../engine/engineTypes";
import { RingBuffer } from "../state/RingBuffer";
import { startAnchor, type RawPlacement } from "../state/startAlignment";

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

function render(placement: RawPlacement): string {
  const { raw, fused } = tracks();
  return renderToStaticMarkup(
    createElement(TrajectoryView, {
      raw: new Map([[1, raw]]),
      fused,
      anchors: new Map([[1, startAnchor(raw, fused.toArray())!]]),
      topics: ["/imu/data", "/odom"],
      placement,
      setPlacement: () => undefined,
      theme: themeFor("light"),
      width: 400,
      height: 300,
      version: 1,
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
    const together = render("fused-start");
    expect(together).toContain("moved 10.0 m onto it");
    expect(attr(together, "data-aligned")).toBe("true");
    expect(attr(together, "data-start-gap")).toBe("0.000");
  });

  it("aligned, the raw track lies on the fused one (same bounds), turned by the start's yaw difference", () => {
    const { raw, fused } = tracks();
    const shown = shownRaw(raw, startAnchor(raw, fused.toArray()), "fused-start");
    const [minX, minY, maxX, maxY] = poseBounds([shown])!;
    expect([minX, minY, maxX, maxY].map((v) => Math.abs(v) < 1e-12 ? 0 : v)).toEqual([0, 0, 5, 0]);
    expect(shown.last()!.yaw).toBeCloseTo(0, 12);
    // Not aligned (or no anchor yet): the raw ring itself.
    expect(shownRaw(raw, startAnchor(raw, fused.toArray()), "as-recorded")).toBe(raw);
    expect(shownRaw(raw, undefined, "fused-start")).toBe(raw);
  });

  it("without raw odometry there is nothing to align: no check box", () => {
    const { fused } = tracks();
    const html = renderToStaticMarkup(
      createElement(TrajectoryView, { raw: new Map(), fused, anchors: new Map(), topics: [], placement: "as-recorded", setPlacement: () => undefined, theme: themeFor("light"), width: 400, height: 300, version: 1 }),
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
        placement: "fused-start",
        setPlacement: () => undefined,
        theme: themeFor("light"),
        width: 400,
        height: 300,
        version: 1,
      }),
    );
    expect(attr(html, "data-raw-tracks")).toBe("2");
    expect(attr(html, "data-raw")).toBe("12");
    expect(attr(html, "data-start-gap")).toBe("0.000");
    // Aligned by their own anchors, both tracks lie on the fused one.
    for (const track of [raw, other]) {
      const [minX, minY, maxX, maxY] = poseBounds([shownRaw(track, startAnchor(track, fused.toArray()), "fused-start")])!;
      expect([minX, minY, maxX, maxY].map((v) => (Math.abs(v) < 1e-12 ? 0 : v))).toEqual([0, 0, 5, 0]);
    }
  });
});
