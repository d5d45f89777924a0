import { describe, expect, it } from "vitest";

import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt } from "./LevenbergMarquardt";
import { odometry2DEstimate } from "./odometry2DEstimate";
import { testContext } from "./testing";
import {
  ACCELERATION_LINEAR_2D,
  Graph,
  NIL_UUID,
  ORIENTATION_2D,
  POSITION_2D,
  Variable,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
} from "../core";

const S = 1_000_000_000;
const TYPES = [POSITION_2D, ORIENTATION_2D, VELOCITY_LINEAR_2D, VELOCITY_ANGULAR_2D, ACCELERATION_LINEAR_2D];
const SIZES = [2, 1, 2, 1, 2];

/** A graph with the five Odometry2D variables at each complete stamp (x = the stamp in s), the last type left out at each partial one. */
function graphWith(complete: readonly number[], partial: readonly number[]): Graph {
  const { uuids: ids } = testContext();
  const graph = new Graph();
  for (const [stamps, count] of [
    [complete, 5],
    [partial, 4],
  ] as const) {
    for (const t of stamps) {
      TYPES.slice(0, count).forEach((type, k) => {
        graph.addVariable(Variable.stamped(ids, type, t * S, NIL_UUID, Array<number>(SIZES[k]!).fill(t)));
      });
    }
  }
  return graph;
}

const estimateAt = (graph: Graph, involved: readonly number[]): number | undefined =>
  odometry2DEstimate(graph, involved.map((t) => t * S), new GraphProblem(graph), new LevenbergMarquardt(), NIL_UUID, {
    covariance: false,
  })?.x;

describe("odometry2DEstimate", () => {
  it("takes the newest complete involved stamp, else the newest complete stamp of the graph", () => {
    const graph = graphWith([1, 2, 4], [3, 5]);
    expect(estimateAt(graph, [1, 2])).toBe(2);
    expect(estimateAt(graph, [1, 3])).toBe(1);
    expect(estimateAt(graph, [3, 5])).toBe(4);
    expect(estimateAt(graph, [])).toBe(4);
    expect(estimateAt(graphWith([], [1, 2]), [1, 2])).toBeUndefined();
  });

  it("uses the variable last in graph order when a type repeats at a stamp, and only the device's", () => {
    const graph = graphWith([1], []);
    graph.addVariable(new Variable({ uuid: "00000000-0000-0000-0000-00000000000b", type: POSITION_2D, stamp: S, data: [7, 7] }));
    graph.addVariable(
      new Variable({ uuid: "00000000-0000-0000-0000-00000000000c", type: POSITION_2D, stamp: 2 * S, deviceId: "other", data: [9, 9] }),
    );
    expect(estimateAt(graph, [1])).toBe(7);
    expect(estimateAt(graph, [2])).toBe(7);
  });
});
