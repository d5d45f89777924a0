import type { FusionConfig } from "../config";
import type { RigidTransform } from "../core";

/** Looks a transform up, or undefined when it is not available. */
export type MountLookup = (target: string, source: string) => RigidTransform | undefined;

interface Watched {
  readonly sensor: string;
  readonly target: string;
  readonly mode: string;
  readonly frames: Set<string>;
}

/**
 * A diagnostic for IMU sensors with an `orientationTargetFrame`: when the IMU's frame is rotated
 * in roll or pitch relative to that target, fuse's orientation transform (q_target_imu ⊗ q, mode
 * "fuse") and the body attitude (q ⊗ q_target_imu⁻¹, mode "body") disagree, and the user should
 * know which one is used. It runs once, as soon as every watched sensor has seen a frame id and
 * the transforms are known; each rotated mount gives one warning.
 */
export class ImuMountCheck {
  readonly #watched: Watched[] = [];
  #done = false;

  public constructor(config: FusionConfig) {
    for (const [sensor, s] of config.sensors) {
      const target = s.params.orientationTargetFrame;
      if (typeof target === "string" && target !== "" && s.descriptor.messageTypes.includes("sensor_msgs/Imu")) {
        this.#watched.push({ sensor, target, mode: (s.params.orientationTransform as string | undefined) ?? "fuse", frames: new Set() });
      }
    }
    this.#done = this.#watched.length === 0;
  }

  /** Notes the frame id of a message a sensor received. */
  public sawFrame(sensor: string, frame: string | undefined): void {
    if (this.#done || frame == undefined || frame === "") {
      return;
    }
    for (const w of this.#watched) {
      if (w.sensor === sensor) {
        w.frames.add(frame);
      }
    }
  }

  /** Runs the check when it can (after a cycle); returns its warnings (once), else []. */
  public run(lookup: MountLookup | undefined): string[] {
    if (this.#done || lookup == undefined || !this.#watched.every((w) => w.frames.size > 0)) {
      return [];
    }
    this.#done = true;
    const out: string[] = [];
    for (const w of this.#watched) {
      for (const frame of w.frames) {
        const t = lookup(w.target, frame);
        if (t == undefined) {
          continue;
        }
        const [x, y] = t.rotation;
        if (Math.abs(x) > 1e-6 || Math.abs(y) > 1e-6) {
          out.push(
            `sensor "${w.sensor}": the IMU frame "${frame}" is rotated (roll/pitch) relative to "${w.target}"; ` +
              `fuse's orientation transform (q_${w.target}_${frame} ⊗ q_measured, orientationTransform "fuse") and the body attitude ` +
              `(q_measured ⊗ q_${w.target}_${frame}⁻¹, "body") disagree; using "${w.mode}"`,
          );
        }
      }
    }
    return out;
  }
}
