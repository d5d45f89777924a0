import type { Duration, Stamp } from "../../time";
import {
  ACCELERATION_LINEAR_3D,
  Constraint,
  diagonal,
  OMNIDIRECTIONAL_3D_KINEMATIC,
  ORIENTATION_3D,
  POSITION_3D,
  resolveDeviceId,
  TimestampManager,
  Variable,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
  whiten,
  type Matrix,
  type FusionContext,
  type MotionModel,
  type MotionSegmentOutput,
  type ReadonlyGraph,
  type Transaction,
} from "../core";
import { upperBound } from "../core/sortedSearch";
import { predictOmnidirectional3D } from "../math/omnidirectional3d";
import type { MotionModelDescriptor } from "../registry/PluginDescriptor";
import { DEVICE } from "../registry/commonParameters";

/** Options of the Unicycle2D motion model (fuse_models::Unicycle2D parameters, §3.8). */
export interface Omnidirectional3DOptions {
  /**
   * `process_noise_diagonal`: 15 variances per second (x, y, z, roll, pitch, yaw, vx, vy, vz,
   * vroll, vpitch, vyaw, ax, ay, az). Required.
   */
  readonly processNoiseDiagonal: readonly number[];
  /** `scale_process_noise`: scale the position and orientation noise by the squared velocity norms. Default false. */
  readonly scaleProcessNoise?: boolean;
  /** `velocity_linear_norm_min` (m/s). Default 1e-3. */
  readonly velocityLinearNormMin?: number;
  /** `velocity_angular_norm_min` (rad/s). Default 1e-3. */
  readonly velocityAngularNormMin?: number;
  /** `buffer_length` in ns (0 = unlimited). Default 3 s. */
  readonly bufferLength?: Duration;
  /** `disable_checks`. Default false. */
  readonly disableChecks?: boolean;
  /** `device_id` (UUID) of the state variables. Default: from deviceName, else NIL. */
  readonly deviceId?: string;
  /** `device_name`: device id = uuid5(NIL, name) when `deviceId` is absent. */
  readonly deviceName?: string;
}

/** One state of the history: the 8 values and the 5 variable UUIDs at that stamp. */
interface StateEntry {
  /** [x, y, z, qw, qx, qy, qz, vx, vy, vz, vroll, vpitch, vyaw, ax, ay, az] */
  readonly state: Float64Array;
  /** [position, orientation, velocity linear, velocity angular, acceleration linear] UUIDs. */
  uuids: readonly string[] | undefined;
}

const TYPES = [
  POSITION_3D,
  ORIENTATION_3D,
  VELOCITY_LINEAR_3D,
  VELOCITY_ANGULAR_3D,
  ACCELERATION_LINEAR_3D,
] as const;
/** Where each of the 5 variables starts in the 16-vector, and its size. */
const OFFSETS = [0, 3, 7, 10, 13] as const;
const SIZES = [3, 4, 3, 3, 3] as const;
const STATE = 16;
const ALL_INDICES: readonly number[] = Array.from({ length: 15 }, (_, i) => i);
/** The initial state: at the origin, identity orientation, at rest. */
const ORIGIN = [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const NS_PER_SEC = 1e9;

/**
 * The Omnidirectional3D motion model (fuse_models::Omnidirectional3D): fuse's chain of 15-dimensional
 * states (Position3D, Orientation3D, VelocityLinear3D, VelocityAngular3D, AccelerationLinear3D at
 * each stamp) joined by `fuse_models::Omnidirectional3DStateKinematicConstraint` with covariance
 * `diag(q)·dt` (with `scaleProcessNoise`, the position block times max(velocityLinearNormMin,
 * ‖v‖)² and the orientation block times max(velocityAngularNormMin, ‖ω‖)²). The chain bookkeeping
 * (TimestampManager, state history refreshed from the graph, prediction from the newest state at
 * or before a segment) is Unicycle2D's; the prediction is `predictOmnidirectional3D`.
 */
export class Omnidirectional3D implements MotionModel {
  #name = "";
  #context: FusionContext | undefined;
  readonly #q: Float64Array;
  readonly #scaleProcessNoise: boolean;
  readonly #linearNormMin: number;
  readonly #angularNormMin: number;
  readonly #bufferLength: number;
  readonly #disableChecks: boolean;
  readonly #deviceId: string;
  readonly #manager: TimestampManager;
  /** History stamps, ascending, and their states. */
  #stamps: Stamp[] = [];
  readonly #history = new Map<Stamp, StateEntry>();
  readonly #scratch = new Float64Array(15);

  /** Throws RangeError naming the option when an option is invalid. */
  public constructor(options: Omnidirectional3DOptions) {
    const q = options.processNoiseDiagonal;
    if (q.length !== 15 || !q.every((v) => Number.isFinite(v))) {
      throw new RangeError(
        `Omnidirectional3D processNoiseDiagonal must hold 15 finite numbers (x, y, z, roll, pitch, yaw, vx, vy, vz, vroll, vpitch, vyaw, ax, ay, az), got [${q.join(", ")}]`,
      );
    }
    this.#q = Float64Array.from(q);
    this.#scaleProcessNoise = options.scaleProcessNoise ?? false;
    this.#linearNormMin = options.velocityLinearNormMin ?? 1e-3;
    this.#angularNormMin = options.velocityAngularNormMin ?? 1e-3;
    const buffer = options.bufferLength ?? 3 * NS_PER_SEC;
    if (!(buffer >= 0)) {
      throw new RangeError(`Omnidirectional3D bufferLength must be ≥ 0 ns (0 = unlimited), got ${buffer}`);
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
        predictOmnidirectional3D(previous.state, (stamp - previousStamp) / NS_PER_SEC, entry.state);
      }
      previous = entry;
      previousStamp = stamp;
    }
  }

  /** The history states (stamp → the 16-value state); for tests and tools. */
  public stateHistory(): Map<Stamp, readonly number[]> {
    return new Map(this.#stamps.map((s) => [s, Array.from(this.#history.get(s)!.state)]));
  }

  get #ctx(): FusionContext {
    if (this.#context == undefined) {
      throw new Error(`Omnidirectional3D motion model used before initialize()`);
    }
    return this.#context;
  }

  /** fuse's generateMotionModel(beginning, ending). */
  #generate(begin: Stamp, end: Stamp): MotionSegmentOutput {
    const none: MotionSegmentOutput = { constraints: [], variables: [] };
    const stamps = this.#stamps;
    const state1 = Float64Array.from(ORIGIN);
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
        predictOmnidirectional3D(base.state, (begin - baseStamp) / NS_PER_SEC, state1);
      }
    }
    uuids1 ??= this.#uuidsAt(begin);
    const dt = (end - begin) / NS_PER_SEC;
    if (dt === 0) {
      this.#emplace(begin, state1, uuids1);
      return none;
    }
    const state2 = new Float64Array(STATE);
    predictOmnidirectional3D(state1, dt, state2);
    const uuids2 = this.#uuidsAt(end);
    this.#emplace(begin, state1, uuids1);
    this.#emplace(end, state2, uuids2);

    const q = this.#scratch;
    q.set(this.#q);
    if (this.#scaleProcessNoise) {
      const fl = Math.max(this.#linearNormMin, Math.hypot(state1[7]!, state1[8]!, state1[9]!)) ** 2;
      const fa = Math.max(this.#angularNormMin, Math.hypot(state1[10]!, state1[11]!, state1[12]!)) ** 2;
      for (let i = 0; i < 3; i++) {
        q[i] = q[i]! * fl;
        q[3 + i] = q[3 + i]! * fa;
      }
    }
    for (let i = 0; i < 15; i++) {
      q[i] = q[i]! * dt;
    }
    if (!this.#disableChecks) {
      const problem = validate(state1, state2, q);
      if (problem != undefined) {
        this.#ctx.warn(`Invalid '${this.#name}' motion model: ${problem}`);
        return none;
      }
    }
    const constraint = kinematicConstraint(this.#name, [...uuids1, ...uuids2], dt, diagonal(q));
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
  const names = ["position", "position", "position", "orientation", "orientation", "orientation", "orientation",
    "linear velocity", "linear velocity", "linear velocity", "angular velocity", "angular velocity", "angular velocity",
    "linear acceleration", "linear acceleration", "linear acceleration"];
  for (const [label, s] of [
    ["#1", state1],
    ["#2", state2],
  ] as const) {
    for (let i = 0; i < STATE; i++) {
      if (!Number.isFinite(s[i])) {
        return `Invalid state ${label}: Invalid ${names[i]!} ${s[i]!}`;
      }
    }
  }
  for (let i = 0; i < 15; i++) {
    if (!(q[i]! > 0) || !Number.isFinite(q[i])) {
      return `Invalid process noise covariance: Non-positive-definite partial covariance matrix (diagonal entry ${i} is ${q[i]!})`;
    }
  }
  return undefined;
}

/** The kinematic constraint between two states (10 UUIDs), covariance Q·dt, JSON with `dt`. */
function kinematicConstraint(source: string, variables: readonly string[], dt: number, covariance: Matrix): Constraint {
  const { sqrtInformation } = whiten(covariance, ALL_INDICES, 15, OMNIDIRECTIONAL_3D_KINEMATIC);
  return new Constraint({
    type: OMNIDIRECTIONAL_3D_KINEMATIC,
    source,
    variables,
    mean: new Float64Array(15),
    sqrtInformation,
    covariance,
    extra: { dt },
  });
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

/** fuse_models::Omnidirectional3D's plugin descriptor. */
export const OMNIDIRECTIONAL_3D: MotionModelDescriptor = {
  role: "motion",
  type: "fuse_models::Omnidirectional3D",
  help: "3D constant-velocity, constant-acceleration motion model (15-dimensional state)",
  parameters: [
    {
      name: "processNoiseDiagonal",
      type: { kind: "vector", length: 15, min: 0 },
      required: true,
      help: "process-noise variances per second (x, y, z, roll, pitch, yaw, vx, vy, vz, vroll, vpitch, vyaw, ax, ay, az)",
    },
    { name: "scaleProcessNoise", type: { kind: "bool" }, default: false, help: "scale the pose noise by the squared velocity norms" },
    { name: "velocityLinearNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, unit: "m/s", help: "lower bound of the linear velocity norm" },
    { name: "velocityAngularNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, unit: "rad/s", help: "lower bound of the angular velocity norm" },
    { name: "bufferLength", type: { kind: "duration" }, default: 3_000_000_000, unit: "ns", help: "state history kept (0 = unlimited)" },
    { name: "disableChecks", type: { kind: "bool" }, default: false, help: "skip the state and covariance validation" },
    ...DEVICE,
  ],
  create: (p) => new Omnidirectional3D(p as unknown as Omnidirectional3DOptions),
};
