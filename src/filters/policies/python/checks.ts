// Validation shared by the rclpy policies (internal; not re-exported).

/** Throws RangeError unless `slots` is an integer >= 1. */
export function checkSlotCount(slots: number, policy: string): void {
  if (!Number.isInteger(slots) || slots < 1) {
    throw new RangeError(`${policy}: slots must be an integer >= 1, got ${slots}`);
  }
}

/** Throws RangeError unless `queueSize` is a safe integer >= 1. */
export function checkQueueSize(queueSize: number, policy: string): void {
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
    throw new RangeError(`${policy}: queueSize must be an integer >= 1, got ${queueSize}`);
  }
}
