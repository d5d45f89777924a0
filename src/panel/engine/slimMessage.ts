/** Arrays and typed arrays longer than this are replaced (images, point clouds, scans). */
export const SLIM_MAX_ELEMENTS = 1024;

/** Whether `value` holds an array longer than SLIM_MAX_ELEMENTS within 8 levels (no allocation). */
function hasLargeArray(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value == undefined || depth > 8) {
    return false;
  }
  if (ArrayBuffer.isView(value)) {
    return ((value as unknown as { length?: number }).length ?? value.byteLength) > SLIM_MAX_ELEMENTS;
  }
  if (Array.isArray(value)) {
    if (value.length > SLIM_MAX_ELEMENTS) {
      return true;
    }
    for (const v of value) {
      if (typeof v === "object" && hasLargeArray(v, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === "object" && hasLargeArray(v, depth + 1)) {
      return true;
    }
  }
  return false;
}

/**
 * A copy-light view of a decoded message for the analysis worker: the same object shape, with
 * every array or typed array longer than SLIM_MAX_ELEMENTS replaced by `{ length }` so that
 * posting a frame to the worker costs little even for camera or lidar topics. Headers, poses,
 * covariances (36 elements) and the like are kept. A message without such arrays is returned as
 * is (no copy: the common case costs one scan). Depth-limited (8 levels); never throws.
 */
export function slimMessage(message: unknown, depth = 0): unknown {
  if (typeof message !== "object" || message == undefined) {
    return message;
  }
  if (depth === 0 && !hasLargeArray(message, 0)) {
    return message;
  }
  if (ArrayBuffer.isView(message)) {
    const len = (message as unknown as { length?: number }).length ?? message.byteLength;
    return len > SLIM_MAX_ELEMENTS ? { length: len } : message;
  }
  if (Array.isArray(message)) {
    if (message.length > SLIM_MAX_ELEMENTS) {
      return { length: message.length };
    }
    return depth >= 8 ? message : message.map((m) => slimMessage(m, depth + 1));
  }
  if (depth >= 8) {
    return message;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(message)) {
    out[k] = slimMessage(v, depth + 1);
  }
  return out;
}
