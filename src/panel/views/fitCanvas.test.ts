import { describe, expect, it } from "vitest";

import { canvasSize } from "./FitCanvas";
import { VIEWS } from "./registry";

describe("canvases fit the panel", () => {
  it("the trajectory views do not scroll: they take the room left below the header and redraw to it", () => {
    for (const id of ["trajectory", "trajectory-3d"]) {
      expect(VIEWS.find((v) => v.id === id)!.scrolls, id).toBe(false);
    }
  });

  it("a canvas takes its measured box (whole pixels), the panel's estimate only until it is measured", () => {
    expect(canvasSize({ width: 300.6, height: 211.2 }, { width: 800, height: 664 })).toEqual({ width: 300, height: 211 });
    expect(canvasSize(undefined, { width: 800, height: 664 })).toEqual({ width: 800, height: 664 });
    // A collapsed box (hidden tab) keeps a drawable canvas.
    expect(canvasSize({ width: 0, height: 0 }, { width: 800, height: 664 })).toEqual({ width: 1, height: 1 });
  });
});
