/** Arrays and typed arrays longer than this are replaced (images, point clouds, scans). */
export const SLIM_MAX_ELEMENTS = 1024;

/**
 * A copy-light view of a decoded message for the analysis worker: the same object shape, with
 * every array or typed array longer than SLIM_MAX_ELEMENTS replaced by `{ length }` so that
 * posting a frame to the worker costs little even for camera or lidar topics. Headers, poses,
 * covariances (36 elements) and the like are kept. Depth-limited (8 levels); never throws.
 */
export function slimMessage(message: unknown, depth = 0): unknown {
  if (typeof message !== "object" || message == undefined) {
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
