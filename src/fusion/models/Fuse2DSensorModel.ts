import type { DropReason } from "../../time/DropReason";
import { AsyncSensorModel, resolveDeviceId, Transaction, type SensorMessage } from "../core";
import { CovarianceCache } from "./common/CovarianceCache";
import { Throttle } from "./common/Throttle";
import type { MeasurementProblem } from "./common/measurement";
import type { ProcEnv } from "./common/sensorProc";

/** Parameters every fuse_models 2D sensor shares (reference/fuse.md §3 "Other common parameters"). */
export interface CommonSensorOptions {
  /** Input topic (required). */
  readonly topic: string;
  /** `throttle_period` in ns on the receive-time clock; default 0 (off). */
  readonly throttlePeriod?: number;
  /** `disable_checks`: skip mean/covariance validation. Default false. */
  readonly disableChecks?: boolean;
  /** `device_id` (a UUID). Default: from deviceName, else NIL. */
  readonly deviceId?: string;
  /** `device_name` (device id = uuid5(NIL, name)). */
  readonly deviceName?: string;
}

/**
 * Shared machinery of the fuse_models 2D sensors: topic subscription, throttling by receive time,
 * header reading, per-message problem collection, and one transaction per kept message (sent even
 * when nothing was added, as fuse does).
 *
 * Drops (each message reported at most once, through `context.drop`): `throttled`; `no-header` /
 * `zero-stamp` (no usable header stamp; nothing is sent); `invalid-covariance` or
 * `transform-unavailable` when some part of the message produced no constraint (the detail names
 * the part and the failed check; the rest of the message is still used, as in fuse).
 */
export abstract class Fuse2DSensorModel<O extends CommonSensorOptions> extends AsyncSensorModel {
  public readonly topics: readonly string[];
  protected readonly options: O;
  protected readonly deviceId: string;
  readonly #throttle: Throttle;
  readonly #covariances = new CovarianceCache();
  #problems: { part: string; problem: MeasurementProblem | "transform-unavailable"; detail: string }[] = [];

  public constructor(options: O) {
    super();
    this.options = options;
    this.topics = [options.topic];
    this.deviceId = resolveDeviceId(options);
    this.#throttle = new Throttle(options.throttlePeriod ?? 0);
  }

  /** The ProcEnv for the processing helpers (valid during onMessage). */
  protected get env(): ProcEnv {
    return {
      source: this.name,
      deviceId: this.deviceId,
      ids: this.context.uuids,
      transforms: this.context.transforms,
      validate: !(this.options.disableChecks ?? false),
      covariances: this.#covariances,
      problem: (part, problem, detail) => {
        this.#problems.push({ part, problem, detail });
      },
    };
  }

  protected override onStart(): void {
    this.#throttle.reset();
    this.onSensorStart();
  }

  /** Reset per-run state (e.g. the previous pose). */
  protected onSensorStart(): void {
    // Optional hook.
  }

  protected override onMessage(event: SensorMessage): void {
    if (!this.#throttle.keep(event.receiveTime)) {
      this.#drop(event, NaN, "throttled", `throttle period ${this.options.throttlePeriod ?? 0} ns`);
      return;
    }
    const header = event.header;
    if (typeof header === "string") {
      this.#drop(event, NaN, header, "the message has no usable header stamp");
      return;
    }
    this.#problems = [];
    const tx = new Transaction(header.stamp);
    this.process(event, header.stamp, header.frameId, tx);
    if (this.#problems.length > 0) {
      const first = this.#problems[0]!;
      const reason: DropReason =
        first.problem === "transform-unavailable" ? "transform-unavailable" : "invalid-covariance";
      this.#drop(event, header.stamp, reason, this.#problems.map((p) => `${p.detail} (${p.problem})`).join("; "));
    }
    this.sendTransaction(tx);
  }

  #drop(event: SensorMessage, stamp: number, reason: DropReason, detail: string): void {
    this.context.drop({ sensor: this.name, topic: event.topic, stamp, reason, detail });
  }

  /** Builds the transaction content for one kept message. */
  protected abstract process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void;
}
