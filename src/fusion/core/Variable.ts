import { copyNumbers } from "./copyNumbers";
import type { StampedUuids } from "./uuid";
import type { Stamp } from "../../time";

/** fuse_variables type names of the 2D stamped variables (exactly as fuse's `type()` returns). */
export const POSITION_2D = "fuse_variables::Position2DStamped";
/** Yaw, wrapped to [-π, π) by its manifold. */
export const ORIENTATION_2D = "fuse_variables::Orientation2DStamped";
/** Body-frame linear velocity (x, y). */
export const VELOCITY_LINEAR_2D = "fuse_variables::VelocityLinear2DStamped";
/** Angular velocity (yaw rate). */
export const VELOCITY_ANGULAR_2D = "fuse_variables::VelocityAngular2DStamped";
/** Body-frame linear acceleration (x, y). */
export const ACCELERATION_LINEAR_2D = "fuse_variables::AccelerationLinear2DStamped";
/** Angular acceleration (yaw). */
export const ACCELERATION_ANGULAR_2D = "fuse_variables::AccelerationAngular2DStamped";

/** fuse_variables type names of the 3D stamped variables. */
export const POSITION_3D = "fuse_variables::Position3DStamped";
/** A unit quaternion stored (w, x, y, z); its manifold is the quaternion's (3 tangent dimensions). */
export const ORIENTATION_3D = "fuse_variables::Orientation3DStamped";
/** Body-frame linear velocity (x, y, z). */
export const VELOCITY_LINEAR_3D = "fuse_variables::VelocityLinear3DStamped";
/** Body-frame angular velocity (roll, pitch, yaw rates). */
export const VELOCITY_ANGULAR_3D = "fuse_variables::VelocityAngular3DStamped";
/** Body-frame linear acceleration (x, y, z). */
export const ACCELERATION_LINEAR_3D = "fuse_variables::AccelerationLinear3DStamped";
/** Angular acceleration (roll, pitch, yaw). */
export const ACCELERATION_ANGULAR_3D = "fuse_variables::AccelerationAngular3DStamped";

/** Shape of a variable type (reference/fuse.md §2.1). */
export interface VariableTypeInfo {
  /** Number of stored doubles. */
  readonly size: number;
  /** Tangent-space dimension (equal to size except for Orientation3DStamped: 3 of 4). */
  readonly localSize: number;
  /** Component names in index order. */
  readonly components: readonly string[];
  /** True when the (single) component is an angle whose manifold wraps to [-π, π). */
  readonly wrapsAngle: boolean;
  /** True for a unit quaternion (w, x, y, z) on the quaternion manifold. */
  readonly quaternion?: boolean;
}

/** The 2D stamped variable types this port knows, keyed by fuse type name. */
export const VARIABLE_TYPES: Readonly<Record<string, VariableTypeInfo>> = {
  [POSITION_2D]: { size: 2, localSize: 2, components: ["x", "y"], wrapsAngle: false },
  [ORIENTATION_2D]: { size: 1, localSize: 1, components: ["yaw"], wrapsAngle: true },
  [VELOCITY_LINEAR_2D]: { size: 2, localSize: 2, components: ["x", "y"], wrapsAngle: false },
  [VELOCITY_ANGULAR_2D]: { size: 1, localSize: 1, components: ["yaw"], wrapsAngle: false },
  [ACCELERATION_LINEAR_2D]: { size: 2, localSize: 2, components: ["x", "y"], wrapsAngle: false },
  [ACCELERATION_ANGULAR_2D]: { size: 1, localSize: 1, components: ["yaw"], wrapsAngle: false },
  [POSITION_3D]: { size: 3, localSize: 3, components: ["x", "y", "z"], wrapsAngle: false },
  [ORIENTATION_3D]: { size: 4, localSize: 3, components: ["w", "x", "y", "z"], wrapsAngle: false, quaternion: true },
  [VELOCITY_LINEAR_3D]: { size: 3, localSize: 3, components: ["x", "y", "z"], wrapsAngle: false },
  [VELOCITY_ANGULAR_3D]: { size: 3, localSize: 3, components: ["roll", "pitch", "yaw"], wrapsAngle: false },
  [ACCELERATION_LINEAR_3D]: { size: 3, localSize: 3, components: ["x", "y", "z"], wrapsAngle: false },
  [ACCELERATION_ANGULAR_3D]: { size: 3, localSize: 3, components: ["roll", "pitch", "yaw"], wrapsAngle: false },
};

/**
 * A fuse variable: a UUID, a type name, and the doubles an optimizer changes in place.
 *
 * Guarantees: `uuid`, `type`, `stamp` and `deviceId` never change after construction; `data` has
 * exactly `size` entries. A stamped variable's UUID is fuse's deterministic one (see
 * `StampedUuids`), so two sensors creating the same type at the same stamp and device refer to the
 * same variable.
 *
 * ```ts
 * const p = Variable.stamped(ids, POSITION_2D, stamp, NIL_UUID, [1, 2]);
 * ```
 */
export class Variable {
  /** Deterministic (stamped) or caller-supplied UUID. */
  public readonly uuid: string;
  /** fuse type name, e.g. "fuse_variables::Position2DStamped". */
  public readonly type: string;
  /** The values (length = size). Optimizers update them in place. */
  public readonly data: Float64Array;
  /** fuse's `holdConstant()`: an optimizer must not change a held variable. Default false. */
  public hold: boolean;
  /** Relative stamp (see time/TimeBase) for stamped variables, else undefined. */
  public readonly stamp: Stamp | undefined;
  /** Device UUID for stamped variables (NIL by default), else undefined. */
  public readonly deviceId: string | undefined;

  public constructor(init: {
    uuid: string;
    type: string;
    data: ArrayLike<number>;
    hold?: boolean;
    stamp?: Stamp;
    deviceId?: string;
  }) {
    this.uuid = init.uuid;
    this.type = init.type;
    this.data = copyNumbers(init.data);
    this.hold = init.hold ?? false;
    this.stamp = init.stamp;
    this.deviceId = init.deviceId;
  }

  /**
   * A stamped variable with fuse's UUID. `data` defaults to zeros of the type's size. Throws
   * RangeError for an unknown type or a data array of the wrong length.
   */
  public static stamped(
    ids: StampedUuids,
    type: string,
    stamp: Stamp,
    deviceId: string,
    data?: ArrayLike<number>,
  ): Variable {
    const info = VARIABLE_TYPES[type];
    if (info == undefined) {
      throw new RangeError(`unknown variable type "${type}"`);
    }
    if (data != undefined && data.length !== info.size) {
      throw new RangeError(`${type} holds ${info.size} values, got ${data.length}`);
    }
    return new Variable({
      uuid: ids.uuid(type, stamp, deviceId),
      type,
      data: data ?? (info.quaternion === true ? Float64Array.of(1, 0, 0, 0) : new Float64Array(info.size)),
      stamp,
      deviceId,
    });
  }

  /** Number of stored doubles. */
  public get size(): number {
    return this.data.length;
  }

  /** Tangent dimension (= size for the 2D types). */
  public get localSize(): number {
    return VARIABLE_TYPES[this.type]?.localSize ?? this.data.length;
  }

  /** A deep copy (own data array). */
  public clone(): Variable {
    return new Variable(this);
  }
}
