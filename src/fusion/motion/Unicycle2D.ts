import { Unicycle2DStateKinematicConstraint } from "./Unicycle2DStateKinematicConstraint";
import type { Duration, Stamp } from "../../time";
import {
  ACCELERATION_LINEAR_2D,
  diagonal,
  ORIENTATION_2D,
  POSITION_2D,
  resolveDeviceId,
  TimestampManager,
  Variable,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type FusionContext,
  type MotionModel,
  type MotionSegmentOutput,
  type ReadonlyGraph,
  type Transaction,
} from "../core";
import { upperBound } from "../core/sortedSearch";
import { predictUnicycle2D } from "../math/unicycle2d";
import type { MotionModelDescriptor } from "../registry/PluginDescriptor";
import { DEVICE } from "../registry/commonParameters";

/** Options of the Unicycle2D motion model (fuse_models::Unicycle2D parameters, §3.8). */
export interface Unicycle2DOptions {
  /**
   * `process_noise_diagonal`: the process-noise variances per second, in the order x, y, yaw, vx,
   * vy, vyaw, ax, ay. Required, 8 finite values.
   */
  readonly processNoiseDiagonal: readonly number[];
  /** `scale_process_noise`: scale the pose block by ‖(vx, vy, vyaw)‖². Default false. */
  readonly scaleProcessNoise?: boolean;
  /** `velocity_norm_min`: lower bound of that norm. Default 1e-3. */
  readonly velocityNormMin?: number;
  /** `buffer_length` in ns: how much history to keep. Default 3 s; 0 = unlimited. */
  readonly bufferLength?: Duration;
  /** `disable_checks`: skip the finite-state / covariance validation. Default false. */
  readonly disableChecks?: boolean;
  /** `device_id` (a UUID string). Default: from `deviceName`, else NIL. */
  readonly deviceId?: string;
  /** `device_name`: device id = uuid5(NIL, name) when `deviceId` is absent. */
  readonly deviceName?: string;
}

/** One state of the history: the 8 values and the 5 variable UUIDs at that stamp. */
interface StateEntry {
  /** [x, y, yaw, vx, vy, vyaw, ax, ay] */
  readonly state: Float64Array;
  /** [position, orientation, velocity linear, velocity angular, acceleration linear] UUIDs. */
  uuids: readonly string[] | undefined;
}

const TYPES = [
  POSITION_2D,
  ORIENTATION_2D,
  VELOCITY_LINEAR_2D,
  VELOCITY_ANGULAR_2D,
  ACCELERATION_LINEAR_2D,
] as const;
/** Where each of the 5 variables starts in the 8-vector, and its size. */
const OFFSETS = [0, 2, 3, 5, 6] as const;
const SIZES = [2, 1, 2, 1, 2] as const;
const NS_PER_SEC = 1e9;

/**
 * The Unicycle2D motion model (fuse_models::Unicycle2D, reference/fuse.md §3.8 and §6.3).
 *
 * For each sensor transaction, `apply` uses fuse's TimestampManager to connect every involved
 * stamp to the chain: for every new pair of consecutive stamps it adds the 5 state variables at
 * both ends (Position2D, Orientation2D, VelocityLinear2D, VelocityAngular2D,
 * AccelerationLinear2D, initialized with the model's prediction, overwriting the sensor's initial
 * values) and one `fuse_models::Unicycle2DStateKinematicConstraint` with covariance
 * `diag(q)·dt` (pose block scaled by `max(velocityNormMin, ‖v‖)²` when `scaleProcessNoise`); a
 * segment split by a new stamp is removed. Predictions start from the newest history state at or
 * before the segment start, refreshed from the optimized graph in `graphCallback`; with no such
 * state the variables start at zero (and a warning is sent, as fuse logs one).
 *
 * Guarantees: constraints only ever join consecutive stamps of the chain; `apply` returns false
 * (and warns) instead of throwing when a stamp is older than the history buffer. A segment whose
 * states or covariance are invalid is skipped with a warning unless `disableChecks`.
 *
 * ```ts
 * const model = new Unicycle2D({ processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] });
 * model.initialize(context, "unicycle_motion_model");
 * model.start();
 * model.apply(transaction); // transaction now carries the chain variables and constraints
 * ```
 */
export class Unicycle2D implements MotionModel {
  #name = "";
  #context: FusionContext | undefined;
  readonly #q: Float64Array;
  readonly #scaleProcessNoise: boolean;
  readonly #velocityNormMin: number;
  readonly #bufferLength: number;
  readonly #disableChecks: boolean;
  readonly #deviceId: string;
  readonly #manager: TimestampManager;
  /** History stamps, ascending, and their states. */
  #stamps: Stamp[] = [];
  readonly #history = new Map<Stamp, StateEntry>();
  readonly #scratch = new Float64Array(8);

  /** Throws RangeError naming the option when an option is invalid. */
  public constructor(options: Unicycle2DOptions) {
    const q = options.processNoiseDiagonal;
    if (q.length !== 8 || !q.every((v) => Number.isFinite(v))) {
      throw new RangeError(
        `Unicycle2D processNoiseDiagonal must hold 8 finite numbers (x, y, yaw, vx, vy, vyaw, ax, ay), got [${q.join(", ")}]`,
      );
    }
    this.#q = Float64Array.from(q);
    this.#scaleProcessNoise = options.scaleProcessNoise ?? false;
    this.#velocityNormMin = options.velocityNormMin ?? 1e-3;
    const buffer = options.bufferLength ?? 3 * NS_PER_SEC;
    if (!(buffer >= 0)) {
      throw new RangeError(`Unicycle2D bufferLength must be ≥ 0 ns (0 = unlimited), got ${buffer}`);
    }
    this.#bufferLength = buffer === 0 ? Infinity : buffer;
    this.#disableChecks = options.disableChecks ?? false;
    this.#deviceId = resolveDeviceId({ deviceId: options.deviceId, deviceName: options.deviceName });
    this.#manager = new TimestampManager((b, e) => this.#generate(b, e), this.#bufferLength);
  }

  public get name(): string {
    return this.#name;
  }

  public initialize(context: FusionContext, name: string): void {
    this.#context = context;
    this.#name = name;
  }

  /** Forgets the chain and the state history (fuse's onStart). */
  public start(): void {
    this.#manager.clear();
    this.#stamps = [];
    this.#history.clear();
  }

  public stop(): void {
    // Nothing to release: the history is cleared on the next start().
  }

  /** Adds the chain segments for the transaction's involved stamps; false (with a warning) on failure. */
  public apply(transaction: Transaction): boolean {
    try {
      this.#manager.query(transaction, { updateVariables: true });
      return true;
    } catch (error) {
      this.#ctx.warn(
        `${this.#name}: an error occurred while completing the motion model query: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      return false;
    }
  }

  /**
   * Refreshes the state history from the optimized graph (fuse's updateStateHistoryEstimates):
   * drops entries older than the buffer (keeping one at or before its start), takes each state
   * whose 5 variables are in the graph, and re-predicts the others from their predecessor.
   */
  public graphCallback(graph: ReadonlyGraph): void {
    const stamps = this.#stamps;
    if (stamps.length === 0) {
      return;
    }
    if (this.#bufferLength !== Infinity) {
      const expiration = stamps[stamps.length - 1]! - this.#bufferLength;
      const firstAfter = upperBound(stamps, expiration);
      if (firstAfter > 1) {
        for (let i = 0; i < firstAfter - 1; i++) {
          this.#history.delete(stamps[i]!);
        }
        stamps.splice(0, firstAfter - 1);
      }
    }
    let previous: StateEntry | undefined;
    let previousStamp = 0;
    for (const stamp of stamps) {
      const entry = this.#history.get(stamp)!;
      const uuids = entry.uuids;
      if (uuids != undefined && allExist(graph, uuids)) {
        for (let k = 0; k < 5; k++) {
          const data = graph.getVariable(uuids[k]!).data;
          for (let i = 0; i < SIZES[k]!; i++) {
            entry.state[OFFSETS[k]! + i] = data[i]!;
          }
        }
      } else if (previous) {
        predictUnicycle2D(previous.state, (stamp - previousStamp) / NS_PER_SEC, entry.state);
      }
      previous = entry;
      previousStamp = stamp;
    }
  }

  /** The history states (stamp → [x, y, yaw, vx, vy, vyaw, ax, ay]); for tests and tools. */
  public stateHistory(): Map<Stamp, readonly number[]> {
    return new Map(this.#stamps.map((s) => [s, Array.from(this.#history.get(s)!.state)]));
  }

  get #ctx(): FusionContext {
    if (this.#context == undefined) {
      throw new Error(`Unicycle2D motion model used before initialize()`);
    }
    return this.#context;
  }

  /** fuse's generateMotionModel(beginning, ending). */
  #generate(begin: Stamp, end: Stamp): MotionSegmentOutput {
    const none: MotionSegmentOutput = { constraints: [], variables: [] };
    const stamps = this.#stamps;
    const state1 = new Float64Array(8);
    const baseIndex = upperBound(stamps, begin) - 1;
    let uuids1: readonly string[] | undefined;
    if (baseIndex < 0) {
      if (stamps.length > 0) {
        this.#ctx.warn(
          `${this.#name}: unable to locate a state in the history with stamp <= ${this.#ctx.timeBase.format(begin)}; variables will all be initialized to 0`,
        );
      }
    } else {
      const baseStamp = stamps[baseIndex]!;
      const base = this.#history.get(baseStamp)!;
      if (baseStamp === begin) {
        state1.set(base.state);
        uuids1 = base.uuids;
      } else {
        predictUnicycle2D(base.state, (begin - baseStamp) / NS_PER_SEC, state1);
      }
    }
    uuids1 ??= this.#uuidsAt(begin);
    const dt = (end - begin) / NS_PER_SEC;
    if (dt === 0) {
      this.#emplace(begin, state1, uuids1);
      return none;
    }
    const state2 = new Float64Array(8);
    predictUnicycle2D(state1, dt, state2);
    const uuids2 = this.#uuidsAt(end);
    this.#emplace(begin, state1, uuids1);
    this.#emplace(end, state2, uuids2);

    const q = this.#scratch;
    q.set(this.#q);
    if (this.#scaleProcessNoise) {
      const norm = Math.hypot(state1[3]!, state1[4]!, state1[5]!);
      const f = Math.max(this.#velocityNormMin, norm) ** 2;
      q[0] = q[0]! * f;
      q[1] = q[1]! * f;
      q[2] = q[2]! * f;
    }
    for (let i = 0; i < 8; i++) {
      q[i] = q[i]! * dt;
    }
    if (!this.#disableChecks) {
      const problem = validate(state1, state2, q);
      if (problem != undefined) {
        this.#ctx.warn(`Invalid '${this.#name}' motion model: ${problem}`);
        return none;
      }
    }
    const constraint = new Unicycle2DStateKinematicConstraint(
      this.#name,
      [...uuids1, ...uuids2],
      dt,
      diagonal(q),
    );
    const variables: Variable[] = [];
    for (const [stamp, state, uuids] of [
      [begin, state1, uuids1],
      [end, state2, uuids2],
    ] as const) {
      for (let k = 0; k < 5; k++) {
        const v = new Variable({
          uuid: uuids[k]!,
          type: TYPES[k]!,
          data: state.subarray(OFFSETS[k], OFFSETS[k]! + SIZES[k]!),
          stamp,
          deviceId: this.#deviceId,
        });
        variables.push(v);
      }
    }
    return { constraints: [constraint], variables };
  }

  /** The 5 variable UUIDs at a stamp (from the history when known, else computed). */
  #uuidsAt(stamp: Stamp): readonly string[] {
    const known = this.#history.get(stamp)?.uuids;
    if (known != undefined) {
      return known;
    }
    const ids = this.#ctx.uuids;
    return TYPES.map((t) => ids.uuid(t, stamp, this.#deviceId));
  }

  /** std::map::emplace: inserts only when the stamp is not in the history yet. */
  #emplace(stamp: Stamp, state: Float64Array, uuids: readonly string[]): void {
    const existing = this.#history.get(stamp);
    if (existing != undefined) {
      existing.uuids ??= uuids;
      return;
    }
    this.#history.set(stamp, { state: Float64Array.from(state), uuids });
    const i = upperBound(this.#stamps, stamp);
    this.#stamps.splice(i, 0, stamp);
  }
}

/** fuse's validateMotionModel: finite states and a positive-definite (diagonal) covariance. */
function validate(state1: Float64Array, state2: Float64Array, q: Float64Array): string | undefined {
  const names = ["pose", "pose", "pose", "linear velocity", "linear velocity", "yaw velocity", "linear acceleration", "linear acceleration"];
  for (const [label, s] of [
    ["#1", state1],
    ["#2", state2],
  ] as const) {
    for (let i = 0; i < 8; i++) {
      if (!Number.isFinite(s[i])) {
        return `Invalid state ${label}: Invalid ${names[i]!} ${s[i]!}`;
      }
    }
  }
  for (let i = 0; i < 8; i++) {
    if (!(q[i]! > 0) || !Number.isFinite(q[i])) {
      return `Invalid process noise covariance: Non-positive-definite partial covariance matrix (diagonal entry ${i} is ${q[i]!})`;
    }
  }
  return undefined;
}

/** Whether every UUID is a variable of the graph. */
function allExist(graph: ReadonlyGraph, uuids: readonly string[]): boolean {
  for (const u of uuids) {
    if (!graph.variableExists(u)) {
      return false;
    }
  }
  return true;
}

/** fuse_models::Unicycle2D's plugin descriptor. */
export const UNICYCLE_2D: MotionModelDescriptor = {
  role: "motion",
  type: "fuse_models::Unicycle2D",
  help: "planar constant-velocity, constant-acceleration motion model (8-dimensional state)",
  parameters: [
    {
      name: "processNoiseDiagonal",
      type: { kind: "vector", length: 8, min: 0 },
      required: true,
      help: "process-noise variances per second (x, y, yaw, vx, vy, vyaw, ax, ay)",
    },
    { name: "scaleProcessNoise", type: { kind: "bool" }, default: false, help: "scale the pose noise by the squared velocity norm" },
    { name: "velocityNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, help: "lower bound of that velocity norm" },
    { name: "bufferLength", type: { kind: "duration" }, default: 3_000_000_000, unit: "ns", help: "state history kept (0 = unlimited)" },
    { name: "disableChecks", type: { kind: "bool" }, default: false, help: "skip the state and covariance validation" },
    ...DEVICE,
  ],
  create: (p) => new Unicycle2D(p as unknown as Unicycle2DOptions),
};
