import type { TraceFacts } from "./facts";
import type { TraceRun } from "./runTrace";

/**
 * A test, for the stamps `facts` describe, of whether a run's sets mostly pair stamps farther
 * apart than the inputs' stamps lie from their nearest partners: its median set timespan is above
 * twice the largest distance from any input's stamp to the nearest stamp of the sparsest input (a
 * set of nearest partners spans at most that; found once, not per run). Such sets are made of
 * messages that are not each other's partners: mustang's odometry, 106–387 ms late, paired by a
 * 120 ms slop with whatever IMU message a 10-message queue still held (median timespan 69 ms,
 * where no stamp lies more than 13 ms from its partner). The search neither suggests such a
 * setting nor counts its sets as a cause. False when the facts have no distances (fewer than two
 * stamped inputs) or the run no sets.
 */
export function farApartTest(facts: TraceFacts): (run: TraceRun) => boolean {
  const farthest = Math.max(0, ...facts.topics.map((t) => t.offsetToSparsest?.max ?? 0));
  return (run) => farthest > 0 && run.timespan != null && run.timespan.median > 2 * farthest;
}
