import {
  compose,
  IDENTITY_TRANSFORM,
  interpolate,
  invert,
  quatNormalize,
  type RigidTransform,
} from "../../geometry";
import type { Duration, Stamp } from "../../time";

/** Why a lookup failed. */
export type TransformErrorKind = "unknown-frame" | "not-connected" | "extrapolation-past" | "extrapolation-future" | "loop";

/** A failed lookup: which frames, which stamp, and why (e.g. the time range that is available). */
export class TransformError extends Error {
  public readonly kind: TransformErrorKind;

  public constructor(kind: TransformErrorKind, message: string) {
    super(message);
    this.name = "TransformError";
    this.kind = kind;
  }
}

/** Whether a transform can be looked up now, will perhaps be later, or never will (too old). */
export type TransformAvailability = "available" | "pending" | "expired";

/** Options of a TransformBuffer. */
export interface TransformBufferOptions {
  /** How much history each frame keeps, behind its newest transform (ns). Default 10 s (tf2's). */
  readonly cacheTime?: Duration;
}

interface Sample {
  readonly stamp: Stamp;
  readonly transform: RigidTransform;
}

interface FrameLink {
  parent: string;
  /** Static transforms hold for every stamp. */
  static: RigidTransform | undefined;
  /** Dynamic samples, sorted by stamp, unique stamps. */
  samples: Sample[];
}

/** tf2's limit on the depth of the frame tree, which also stops a loop. */
const MAX_DEPTH = 1000;

/** Frame ids are compared without a leading slash, as tf2 does. */
export function stripSlash(frame: string): string {
  return frame.startsWith("/") ? frame.slice(1) : frame;
}

/**
 * A tf2-style transform tree with time history (tf2 `BufferCore`). Each child frame has one parent
 * and either a static transform or a time series of samples; lookups interpolate between the two
 * samples around the requested stamp (linear translation, slerp rotation) and compose along the
 * tree. Samples older than the frame's newest minus `cacheTime` are pruned. A frame's parent is
 * the one of its latest transform (a change of parent restarts that frame's history — tf2 keeps
 * parents per sample; this is simpler and equal whenever parents do not change).
 *
 * Stamps are relative (`time/TimeBase`); the caller converts message stamps. Errors say which
 * frame is unknown or which link lacks data at which stamp and what range it has.
 *
 * ```ts
 * const tf = new TransformBuffer();
 * tf.setStaticTransform("base_link", "imu_link", { translation: [0, -0.3, 0.52], rotation: q });
 * const t = tf.lookup("base_link", "imu_link", stamp); // maps imu_link points into base_link
 * ```
 */
export class TransformBuffer {
  readonly #cacheTime: Duration;
  readonly #links = new Map<string, FrameLink>();
  #listeners: readonly (() => void)[] = [];

  public constructor(options: TransformBufferOptions = {}) {
    const cacheTime = options.cacheTime ?? 10_000_000_000;
    if (!(cacheTime >= 0)) {
      throw new RangeError(`TransformBuffer: cacheTime must be >= 0 ns, got ${cacheTime}`);
    }
    this.#cacheTime = cacheTime;
  }

  /** History kept per frame (ns). */
  public get cacheTime(): Duration {
    return this.#cacheTime;
  }

  /**
   * Adds `T_parent_child` at `stamp`. The rotation is normalized. A repeated stamp on the same
   * link is ignored (tf2 ignores repeated data). Listeners run after the buffer is updated. Throws
   * RangeError for an empty frame, parent == child, or a bad quaternion.
   */
  public setTransform(parentFrame: string, childFrame: string, stamp: Stamp, transform: RigidTransform): this {
    return this.#set(parentFrame, childFrame, stamp, transform, "dynamic");
  }

  /** Adds a static `T_parent_child`, valid at every stamp (replaces the link's history). */
  public setStaticTransform(parentFrame: string, childFrame: string, transform: RigidTransform): this {
    return this.#set(parentFrame, childFrame, 0, transform, "static");
  }

  #set(parentFrame: string, childFrame: string, stamp: Stamp, transform: RigidTransform, kind: "static" | "dynamic"): this {
    const isStatic = kind === "static";
    const parent = stripSlash(parentFrame);
    const child = stripSlash(childFrame);
    if (parent === "" || child === "") {
      throw new RangeError(`TransformBuffer: a transform needs non-empty frames (got "${parentFrame}" -> "${childFrame}")`);
    }
    if (parent === child) {
      throw new RangeError(`TransformBuffer: frame "${child}" cannot be its own parent`);
    }
    const t: RigidTransform = { translation: [...transform.translation], rotation: quatNormalize(transform.rotation) };
    let link = this.#links.get(child);
    if (link?.parent !== parent || isStatic !== (link.static != undefined)) {
      link = { parent, static: undefined, samples: [] };
      this.#links.set(child, link);
    }
    if (isStatic) {
      link.static = t;
    } else {
      const samples = link.samples;
      const i = upperBound(samples, stamp);
      if (i > 0 && samples[i - 1]!.stamp === stamp) {
        return this;
      }
      samples.splice(i, 0, { stamp, transform: t });
      const newest = samples[samples.length - 1]!.stamp;
      let drop = 0;
      while (drop < samples.length - 1 && samples[drop]!.stamp + this.#cacheTime < newest) {
        drop++;
      }
      if (drop > 0) {
        samples.splice(0, drop);
      }
    }
    for (const l of this.#listeners) {
      l();
    }
    return this;
  }

  /** Calls `listener` after every change; returns a function that unsubscribes it. */
  public onChange(listener: () => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** Every frame that appears as a parent or child. */
  public frames(): string[] {
    const out = new Set<string>();
    for (const [child, link] of this.#links) {
      out.add(child);
      out.add(link.parent);
    }
    return [...out].sort();
  }

  /** Forgets every transform (listeners stay). */
  public clear(): this {
    this.#links.clear();
    return this;
  }

  /**
   * `T_target_source` at `stamp`: maps points in `source` to `target`. `stamp` undefined means the
   * latest time every link involved has data for (tf2's time 0). Throws TransformError naming the
   * frame or link and the stamp when a frame is unknown, the frames are not connected, or the
   * stamp lies outside a link's data (extrapolation).
   */
  public lookup(targetFrame: string, sourceFrame: string, stamp?: Stamp): RigidTransform {
    const target = stripSlash(targetFrame);
    const source = stripSlash(sourceFrame);
    if (target === source) {
      this.#checkKnown(target);
      return IDENTITY_TRANSFORM;
    }
    const { up, down } = this.#chain(target, source);
    const at = stamp ?? this.#latestCommon(up, down) ?? 0;
    let fromSource: RigidTransform = IDENTITY_TRANSFORM; // T_ancestor_source
    for (const child of up) {
      fromSource = compose(this.#linkAt(child, at), fromSource);
    }
    let fromTarget: RigidTransform = IDENTITY_TRANSFORM; // T_ancestor_target
    for (const child of down) {
      fromTarget = compose(this.#linkAt(child, at), fromTarget);
    }
    return compose(invert(fromTarget), fromSource);
  }

  /** Whether `lookup(target, source, stamp)` would succeed now. Never throws. */
  public canTransform(targetFrame: string, sourceFrame: string, stamp: Stamp): boolean {
    return this.availability(targetFrame, sourceFrame, stamp) === "available";
  }

  /**
   * "available" when the lookup succeeds now; "expired" when it never will: the stamp lies more
   * than `cacheTime` before the latest time the links have in common (tf2's test,
   * `stamp + cache_time < latest_time`); "pending" otherwise (unknown frames, or data not there
   * yet). Never throws.
   */
  public availability(targetFrame: string, sourceFrame: string, stamp: Stamp): TransformAvailability {
    const target = stripSlash(targetFrame);
    const source = stripSlash(sourceFrame);
    if (target === source) {
      return this.#isKnown(target) ? "available" : "pending";
    }
    let chain;
    try {
      chain = this.#chain(target, source);
    } catch {
      return "pending";
    }
    const links = [...chain.up, ...chain.down];
    if (links.every((child) => this.#covers(child, stamp))) {
      return "available";
    }
    const latest = this.#latestCommon(chain.up, chain.down);
    return latest != undefined && stamp + this.#cacheTime < latest ? "expired" : "pending";
  }

  #isKnown(frame: string): boolean {
    if (this.#links.has(frame)) {
      return true;
    }
    for (const link of this.#links.values()) {
      if (link.parent === frame) {
        return true;
      }
    }
    return false;
  }

  #checkKnown(frame: string): void {
    if (!this.#isKnown(frame)) {
      const known = this.frames();
      throw new TransformError(
        "unknown-frame",
        `frame "${frame}" is unknown (known frames: ${known.length > 0 ? known.join(", ") : "none yet"})`,
      );
    }
  }

  /** Children from `source` up to the common ancestor (up) and from `target` up to it (down). */
  #chain(target: string, source: string): { up: string[]; down: string[] } {
    this.#checkKnown(target);
    this.#checkKnown(source);
    const sourcePath = this.#pathToRoot(source);
    const targetPath = this.#pathToRoot(target);
    // Connected frames share their root, and their paths share the part from the lowest common
    // ancestor to that root: strip it from the ends (as tf2's walkToTopParent does).
    let i = sourcePath.length - 1;
    let j = targetPath.length - 1;
    if (sourcePath[i] === targetPath[j]) {
      while (i > 0 && j > 0 && sourcePath[i - 1] === targetPath[j - 1]) {
        i--;
        j--;
      }
      return { up: sourcePath.slice(0, i), down: targetPath.slice(0, j) };
    }
    throw new TransformError(
      "not-connected",
      `frames "${target}" and "${source}" are not connected: "${target}" belongs to the tree of "${targetPath.at(-1)!}", "${source}" to the tree of "${sourcePath.at(-1)!}"`,
    );
  }

  /** [frame, parent, grandparent, …, root]. */
  #pathToRoot(frame: string): string[] {
    const path = [frame];
    let at = frame;
    for (let link = this.#links.get(at); link; link = this.#links.get(at)) {
      at = link.parent;
      path.push(at);
      if (path.length > MAX_DEPTH) {
        throw new TransformError("loop", `the frame tree above "${frame}" is deeper than ${MAX_DEPTH} (a loop?)`);
      }
    }
    return path;
  }

  #covers(child: string, stamp: Stamp): boolean {
    const link = this.#links.get(child)!;
    if (link.static) {
      return true;
    }
    const s = link.samples;
    return s.length > 0 && stamp >= s[0]!.stamp && stamp <= s[s.length - 1]!.stamp;
  }

  /** The latest stamp every dynamic link of the chain has data for; undefined if all are static. */
  #latestCommon(up: string[], down: string[]): Stamp | undefined {
    let latest: Stamp | undefined;
    for (const child of [...up, ...down]) {
      const link = this.#links.get(child)!;
      if (!link.static) {
        const newest = link.samples[link.samples.length - 1]?.stamp;
        if (newest != undefined) {
          latest = latest == undefined ? newest : Math.min(latest, newest);
        }
      }
    }
    return latest;
  }

  #linkAt(child: string, stamp: Stamp): RigidTransform {
    const link = this.#links.get(child)!;
    if (link.static) {
      return link.static;
    }
    const s = link.samples;
    const first = s[0]!;
    const last = s[s.length - 1]!;
    if (stamp < first.stamp) {
      throw new TransformError(
        "extrapolation-past",
        `lookup of "${link.parent}" -> "${child}" at stamp ${stamp} would extrapolate into the past: data covers ${first.stamp} .. ${last.stamp} (ns, relative)`,
      );
    }
    if (stamp > last.stamp) {
      throw new TransformError(
        "extrapolation-future",
        `lookup of "${link.parent}" -> "${child}" at stamp ${stamp} would extrapolate into the future: data covers ${first.stamp} .. ${last.stamp} (ns, relative)`,
      );
    }
    const i = upperBound(s, stamp); // first sample with stamp > requested
    const before = s[i - 1]!;
    if (before.stamp === stamp || i === s.length) {
      return before.transform;
    }
    const after = s[i]!;
    return interpolate(before.transform, after.transform, (stamp - before.stamp) / (after.stamp - before.stamp));
  }
}

/** Index of the first sample with stamp > `stamp`. */
function upperBound(samples: readonly Sample[], stamp: Stamp): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid]!.stamp <= stamp) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
