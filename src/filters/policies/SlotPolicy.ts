import type { CombinerPolicy, PolicyHost } from "./CombinerPolicy";
import type { Stamp } from "../../time";

/**
 * What every combiner policy shares: the config type, the slot count, whether headerless
 * messages are accepted, and the host `bind` connected. Before `bind` the host is `unbound`: the
 * fkie policies pass a host that throws when used (`H` = `PolicyHost<T>`, so the hot path needs
 * no check); the ROS 2 and rclpy ones pass nothing and start each `add` with {@link hostFor},
 * which throws as those ports do: `Error` before `bind()`, `RangeError` for a slot that does not
 * exist. Subclasses validate their options (slot count included) before calling the constructor.
 */
export abstract class SlotPolicy<T, H extends PolicyHost<T> | undefined = PolicyHost<T> | undefined>
  implements CombinerPolicy<T>
{
  /** The config type (e.g. "ros/exact-time"). */
  public readonly type: string;
  /** Number of input slots. */
  // Numeric fields read per message are initialized where they are declared, not only assigned in
  // the constructor (here and in the policies, rings, Combiner inputs and TimeBase, and in the
  // fusion preview's costs, manifolds and optimizers): a field declared without a value starts as
  // undefined, and V8 then stores it as a tagged value that every read must test for a small
  // integer or a boxed number.
  public readonly slots: number = 0;
  /** Whether `add` accepts NaN stamps; when false, callers drop headerless messages as `no-header`. */
  public readonly acceptsHeaderless: boolean;
  /** The host `bind` connected; `unbound` before the first `bind`. */
  protected host: H;
  /**
   * Whether the host reads `emit`'s `stamps` (its `readsStamps`, read once in `bind`): when false,
   * a policy passes `NO_STAMPS` instead of building an array per set.
   */
  protected readsStamps = true;

  /** `headerless`: whether `add` takes messages without a header stamp ("accept") or not. */
  protected constructor(type: string, slots: number, headerless: "accept" | "refuse", unbound?: H) {
    this.host = unbound as H;
    this.type = type;
    this.slots = slots;
    this.acceptsHeaderless = headerless === "accept";
  }

  /** Connects the policy to its host. */
  public bind(host: PolicyHost<T>): void {
    this.host = host as H;
    this.readsStamps = host.readsStamps ?? true;
  }

  /** See {@link CombinerPolicy.add}. */
  public abstract add(slot: number, stamp: Stamp, item: T, arrival: Stamp): void;

  /** See {@link CombinerPolicy.reset}. */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public abstract reset(reportDrops?: boolean): void;

  /**
   * `hostFor`, and for a message without a header stamp (NaN) its `no-header` drop ("<type> needs
   * a header stamp"), returning undefined: the start of `add` in the policies that match by stamp.
   */
  protected hostForStamped(slot: number, stamp: Stamp, item: T): PolicyHost<T> | undefined {
    const host = this.hostFor(slot);
    if (stamp !== stamp) {
      host.drop(slot, stamp, item, "no-header", `${this.type} needs a header stamp`);
      return undefined;
    }
    return host;
  }

  /**
   * Whether `slot` is one of this policy's slot indices (an integer in 0..slots − 1): the one test
   * of every policy's `add` and setters. `slot >>> 0 === slot` holds exactly for the integers in
   * [0, 2^32), and costs less than Number.isInteger and a sign test on the per-message path.
   */
  public isSlot(slot: number): boolean {
    return slot >>> 0 === slot && slot < this.slots;
  }

  /** The bound host, for an `add` to `slot`; throws before `bind()` or for a slot that does not exist. */
  protected hostFor(slot: number): PolicyHost<T> {
    const host: PolicyHost<T> | undefined = this.host;
    if (host == undefined || !this.isSlot(slot)) {
      rejectAdd(this.type, host, slot, this.slots);
    }
    return host;
  }
}

// The error path of `hostFor`, kept out of it so the per-message path stays small.
function rejectAdd<T>(policy: string, host: PolicyHost<T> | undefined, slot: number, slots: number): never {
  if (host == undefined) {
    throw new Error(`${policy}: add() called before bind()`);
  }
  throw new RangeError(`${policy}: no slot ${slot} (slots 0..${slots - 1})`);
}
