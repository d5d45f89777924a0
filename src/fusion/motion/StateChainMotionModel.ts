import type { Duration, Stamp } from "../../time";
import {
  resolveDeviceId,
  TimestampManager,
  Variable,
  type Constraint,
  type FusionContext,
  type Matrix,
  type MotionModel,
  type MotionSegmentOutput,
  type ReadonlyGraph,
  type Transaction,
} from "../core";
import { DiagonalNoiseCache } from "./DiagonalNoiseCache";
import { upperBound } from "../core/sortedSearch";

/** The options every fuse_models kinematic motion model has (fuse's parameter names in camelCase). */
export interface StateChainOptions {
  /** `process_noise_diagonal`: the process-noise variances per second, one per state dimension. Required. */
  readonly processNoiseDiagonal: readonly number[];
  /** `scale_process_noise`: scale the noise by the state's velocity (the layout says how). Default false. */
  readonly scaleProcessNoise?: boolean;
  /** `buffer_length` in ns: how much history to keep. Default 3 s; 0 = unlimited. */
  readonly bufferLength?: Duration;
  /** `disable_checks`: skip the finite-state / covariance validation. Default false. */
  readonly disableChecks?: boolean;
  /** `device_id` (a UUID string). Default: from `deviceName`, else NIL. */
  readonly deviceId?: string;
  /** `device_name`: device id = uuid5(NIL, name) when `deviceId` is absent. */
  readonly deviceName?: string;
}

/**
 * What distinguishes one kinematic motion model from another: its state's variables and storage,
 * its prediction, its process-noise scaling and its constraint.
 */
export interface StateLayout {
  /** The model's name in messages ("Unicycle2D"). */
  readonly label: string;
  /** The variable types at each stamp, in the constraint's order. */
  readonly types: readonly string[];
  /** Where each variable starts in the stored state vector, and its size (ambient). */
  readonly offsets: readonly number[];
  readonly sizes: readonly number[];
  /** Name of each stored state value, for validation messages. */
  readonly valueNames: readonly string[];
  /** Name of each process-noise dimension (its length is the noise dimension). */
  readonly noiseNames: readonly string[];
  /** The state a chain starts from when the history has nothing (all variables "initialized to 0"). */
  readonly initialState: readonly number[];
  /** Writes the state `dt` seconds after `state` into `out` (no aliasing). */
  predict(state: Float64Array, dt: number, out: Float64Array): void;
  /** Scales the per-second noise `q` in place for `scale_process_noise`, from the segment's first state. */
  scaleNoise(state: Float64Array, q: Float64Array): void;
  /**
   * The kinematic constraint between two states (the 2 × types UUIDs), covariance `covariance`;
   * `sqrtInformation`, when given, is `chol_upper(covariance⁻¹)` already computed.
   */
  constraint(source: string, variables: readonly string[], dt: number, covariance: Matrix, sqrtInformation?: Matrix): Constraint;
}

/**
 * One state of the history: the stored values and the variable UUIDs at that stamp. A class, not
 * an object literal, as GraphProblem's slots are (V8 would allocate the literal's objects in the
 * old generation, where a dead one keeps its young state alive until the next full collection).
 */
class StateEntry {
  /**
   * The stamp of the history state this state was last predicted from in `graphCallback`
   * (undefined when it was not predicted there): while that predecessor is unchanged, the
   * prediction would give the same values again.
   */
  public predictedFrom: Stamp | undefined = undefined;

  public constructor(
    public readonly state: Float64Array,
    public uuids: readonly string[] | undefined,
  ) {}
}

const NS_PER_SEC = 1e9;

/** The segment output that adds nothing (shared: outputs are never changed). */
const NO_SEGMENT: MotionSegmentOutput = Object.freeze({ constraints: Object.freeze([]), variables: Object.freeze([]) });

/**
 * The chain bookkeeping fuse_models' kinematic motion models share (Unicycle2D, Omnidirectional3D;
 * reference/fuse.md §3.8 and §6.3), with the model's specifics in a StateLayout.
 *
 * For each sensor transaction, `apply` uses fuse's TimestampManager to connect every involved
 * stamp to the chain: for every new pair of consecutive stamps it adds the state variables at both
 * ends (initialized with the model's prediction, overwriting the sensor's initial values) and one
 * kinematic constraint with covariance `diag(q)·dt` (q scaled by the layout when
 * `scaleProcessNoise`); a segment split by a new stamp is removed. Predictions start from the
 * newest history state at or before the segment start, refreshed from the optimized graph in
 * `graphCallback`; with no such state the variables start at the layout's initial state (and a
 * warning is sent, as fuse logs one).
 *
 * Guarantees: constraints only ever join consecutive stamps of the chain; `apply` returns false
 * (and warns) instead of throwing when a stamp is older than the history buffer. A segment whose
 * states or covariance are invalid is skipped with a warning unless `disableChecks`.
 */
export abstract class StateChainMotionModel implements MotionModel {
  #name = "";
  #context: FusionContext | undefined;
  readonly #layout: StateLayout;
  readonly #q: Float64Array;
  readonly #scaleProcessNoise: boolean;
  readonly #bufferLength: number = 0;
  readonly #disableChecks: boolean;
  readonly #deviceId: string;
  readonly #manager: TimestampManager;
  /** History stamps, ascending, their states in the same order, and the states by stamp. */
  #stamps: Stamp[] = [];
  #entries: StateEntry[] = [];
  readonly #history = new Map<Stamp, StateEntry>();
  readonly #scratch: Float64Array;
  readonly #noise = new DiagonalNoiseCache();
  /** graphCallback's scratch: the graph's variables of one state. */
  readonly #found: Readonly<Variable>[] = [];
  /** The layout's initial state as a typed array (each segment starts from a copy). */
  readonly #initialState: Float64Array;
  /**
   * One buffer per variable of a state, its size: a variable's values are gathered here and the
   * Variable copies them. A `subarray` view of the state instead would give the state an
   * ArrayBuffer of its own (a small typed array's values live inline until a view needs them).
   */
  readonly #parts: Float64Array[];

  /** Throws RangeError naming the option when an option is invalid. */
  protected constructor(options: StateChainOptions, layout: StateLayout) {
    const q = options.processNoiseDiagonal;
    const n = layout.noiseNames.length;
    if (q.length !== n || !q.every((v) => Number.isFinite(v))) {
      throw new RangeError(
        `${layout.label} processNoiseDiagonal must hold ${n} finite numbers (${layout.noiseNames.join(", ")}), got [${q.join(", ")}]`,
      );
    }
    this.#layout = layout;
    this.#initialState = Float64Array.from(layout.initialState);
    this.#parts = layout.sizes.map((size) => new Float64Array(size));
    this.#q = Float64Array.from(q);
    this.#scratch = new Float64Array(n);
    this.#scaleProcessNoise = options.scaleProcessNoise ?? false;
    const buffer = options.bufferLength ?? 3 * NS_PER_SEC;
    if (!(buffer >= 0)) {
      throw new RangeError(`${layout.label} bufferLength must be ≥ 0 ns (0 = unlimited), got ${buffer}`);
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
    this.#entries = [];
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
   * whose variables are all in the graph, and re-predicts the others from their predecessor.
   * A state predicted from the same predecessor in an earlier call, whose predecessor has not
   * changed since, keeps its values: predicting again would give exactly those (the prediction is
   * a function of the predecessor's state and the stamps only), so only the states after a change
   * are predicted again.
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
        this.#entries.splice(0, firstAfter - 1);
      }
    }
    const { offsets, sizes } = this.#layout;
    let previous: StateEntry | undefined;
    let previousStamp = 0;
    // Whether the previous entry's state differs from what it was at the end of the last call.
    let previousChanged = false;
    const entries = this.#entries;
    const found = this.#found;
    for (let j = 0; j < stamps.length; j++) {
      const stamp = stamps[j]!;
      const entry = entries[j]!;
      const uuids = entry.uuids;
      let changed = false;
      if (uuids != undefined && findAll(graph, uuids, found)) {
        const state = entry.state;
        for (let k = 0; k < uuids.length; k++) {
          const data = found[k]!.data;
          const offset = offsets[k]!;
          for (let i = 0; i < sizes[k]!; i++) {
            const value = data[i]!;
            if (!Object.is(state[offset + i], value)) {
              state[offset + i] = value;
              changed = true;
            }
          }
        }
        entry.predictedFrom = undefined;
      } else if (previous) {
        if (previousChanged || entry.predictedFrom !== previousStamp) {
          this.#layout.predict(previous.state, (stamp - previousStamp) / NS_PER_SEC, entry.state);
          entry.predictedFrom = previousStamp;
          changed = true;
        }
      } else {
        entry.predictedFrom = undefined;
      }
      previous = entry;
      previousStamp = stamp;
      previousChanged = changed;
    }
  }

  /** The history states (stamp → the stored state values); for tests and tools. */
  public stateHistory(): Map<Stamp, readonly number[]> {
    return new Map(this.#stamps.map((s) => [s, Array.from(this.#history.get(s)!.state)]));
  }

  get #ctx(): FusionContext {
    if (this.#context == undefined) {
      throw new Error(`${this.#layout.label} motion model used before initialize()`);
    }
    return this.#context;
  }

  /** fuse's generateMotionModel(beginning, ending). */
  #generate(begin: Stamp, end: Stamp): MotionSegmentOutput {
    const layout = this.#layout;
    const stamps = this.#stamps;
    // A typed array's slice copies the bits (Float64Array.from of the layout's number array,
    // once per segment, went through the iterator protocol).
    const state1 = this.#initialState.slice();
    const baseIndex = upperBound(stamps, begin) - 1;
    let uuids1: readonly string[] | undefined;
    if (baseIndex < 0) {
      if (stamps.length > 0) {
        this.#ctx.warn(
          `${this.#name}: unable to locate a state in the history with stamp <= ${this.#ctx.timeBase.formatSeconds(begin)}; variables will all be initialized to 0`,
        );
      }
    } else {
      const baseStamp = stamps[baseIndex]!;
      const base = this.#entries[baseIndex]!;
      if (baseStamp === begin) {
        state1.set(base.state);
        uuids1 = base.uuids;
      } else {
        layout.predict(base.state, (begin - baseStamp) / NS_PER_SEC, state1);
      }
    }
    uuids1 ??= this.#uuidsAt(begin);
    const dt = (end - begin) / NS_PER_SEC;
    if (dt === 0) {
      this.#emplace(begin, state1, uuids1);
      return NO_SEGMENT;
    }
    const state2 = new Float64Array(state1.length);
    layout.predict(state1, dt, state2);
    const uuids2 = this.#uuidsAt(end);
    this.#emplace(begin, state1, uuids1);
    this.#emplace(end, state2, uuids2);

    const q = this.#scratch;
    q.set(this.#q);
    if (this.#scaleProcessNoise) {
      layout.scaleNoise(state1, q);
    }
    for (let i = 0; i < q.length; i++) {
      q[i] = q[i]! * dt;
    }
    if (!this.#disableChecks) {
      const problem = validate(layout, state1, state2, q);
      if (problem != undefined) {
        this.#ctx.warn(`Invalid '${this.#name}' motion model: ${problem}`);
        return NO_SEGMENT;
      }
    }
    const noise = this.#noise.get(q);
    const constraint = layout.constraint(this.#name, [...uuids1, ...uuids2], dt, noise.covariance, noise.sqrtInformation);
    const variables: Variable[] = [];
    this.#pushVariables(begin, state1, uuids1, variables);
    this.#pushVariables(end, state2, uuids2, variables);
    return { constraints: [constraint], variables };
  }

  /** Appends the state's variables at `stamp` (copies of its values) to `out`. */
  #pushVariables(stamp: Stamp, state: Float64Array, uuids: readonly string[], out: Variable[]): void {
    const { types, offsets } = this.#layout;
    for (let k = 0; k < types.length; k++) {
      const part = this.#parts[k]!;
      const offset = offsets[k]!;
      for (let i = 0; i < part.length; i++) {
        part[i] = state[offset + i]!;
      }
      out.push(new Variable({ uuid: uuids[k]!, type: types[k]!, data: part, stamp, deviceId: this.#deviceId }));
    }
  }

  /** The variable UUIDs at a stamp (from the history when known, else computed). */
  #uuidsAt(stamp: Stamp): readonly string[] {
    const known = this.#history.get(stamp)?.uuids;
    if (known != undefined) {
      return known;
    }
    const ids = this.#ctx.uuids;
    return this.#layout.types.map((t) => ids.uuid(t, stamp, this.#deviceId));
  }

  /**
   * std::map::emplace: inserts only when the stamp is not in the history yet, keeping `state`
   * itself (the caller hands over a state it does not change afterwards).
   */
  #emplace(stamp: Stamp, state: Float64Array, uuids: readonly string[]): void {
    const existing = this.#history.get(stamp);
    if (existing != undefined) {
      existing.uuids ??= uuids;
      return;
    }
    const entry = new StateEntry(state, uuids);
    this.#history.set(stamp, entry);
    const i = upperBound(this.#stamps, stamp);
    this.#stamps.splice(i, 0, stamp);
    this.#entries.splice(i, 0, entry);
  }
}

/** fuse's validateMotionModel: finite states and a positive-definite (diagonal) covariance. */
function validate(layout: StateLayout, state1: Float64Array, state2: Float64Array, q: Float64Array): string | undefined {
  const invalid = invalidValue(layout, "#1", state1) ?? invalidValue(layout, "#2", state2);
  if (invalid != undefined) {
    return invalid;
  }
  for (let i = 0; i < q.length; i++) {
    if (!(q[i]! > 0) || !Number.isFinite(q[i])) {
      return `Invalid process noise covariance: Non-positive-definite partial covariance matrix (diagonal entry ${i} is ${q[i]!})`;
    }
  }
  return undefined;
}

/** validate's message for the first non-finite value of `state` (labelled `label`), if any. */
function invalidValue(layout: StateLayout, label: string, state: Float64Array): string | undefined {
  for (let i = 0; i < state.length; i++) {
    if (!Number.isFinite(state[i])) {
      return `Invalid state ${label}: Invalid ${layout.valueNames[i]!} ${state[i]!}`;
    }
  }
  return undefined;
}

/**
 * Whether every UUID is a variable of the graph; when so, `out[k]` is the variable of `uuids[k]`.
 * One lookup per UUID (an existence check and then a get was two, for every history state on
 * every cycle).
 */
function findAll(graph: ReadonlyGraph, uuids: readonly string[], out: Readonly<Variable>[]): boolean {
  for (let k = 0; k < uuids.length; k++) {
    const variable = graph.findVariable(uuids[k]!);
    if (variable == undefined) {
      return false;
    }
    out[k] = variable;
  }
  return true;
}
