import type { CostFunction } from "../math/CostFunction";
import type { LossFunction } from "../math/losses";
import { VectorManifold, type Manifold } from "../math/manifold";

/** One parameter block: a variable's live values, updated in place by the solver. */
export interface ParameterBlock {
  /** The values (the variable's `data`); the solver writes the solution here. */
  readonly data: Float64Array;
  /** How the block moves (tangent steps; Orientation2D wraps, Orientation3D is a quaternion). */
  readonly manifold: Manifold;
  /** Tangent dimension: the block's number of columns in the Jacobians and normal equations. */
  readonly localSize: number;
  /** Held constant (fuse's hold): the solver never changes it. */
  constant: boolean;
}

/** One residual block: a cost function, an optional robust loss and its parameter blocks. */
export interface ResidualBlock {
  readonly cost: CostFunction;
  /** Undefined = plain least squares. */
  readonly loss: LossFunction | undefined;
  /** Indices into `Problem.blocks`, in the cost function's parameter order. */
  readonly blockIndices: readonly number[];
  /** The blocks' data arrays in the same order (what `cost.evaluate` receives). */
  readonly parameters: readonly Float64Array[];
}

/**
 * A non-linear least-squares problem in Ceres' shape: parameter blocks and residual blocks
 * `½ρ(‖r(x)‖²)`. The order of parameter blocks is the solver's column order: add them in stamp
 * order for chain-shaped graphs, so the normal equations stay banded (see `LevenbergMarquardt`).
 *
 * ```ts
 * const problem = new Problem();
 * const x = problem.addParameterBlock(variable.data);
 * problem.addResidualBlock(new AbsoluteCost([1, 2], [1, 0, 0, 1]), undefined, [x]);
 * ```
 */
export class Problem {
  // Rebuilding after `clear` overwrites these in place (the first #blockCount / #residualCount
  // entries are current); the getters cut them to length, so their storage is kept between builds.
  readonly #blocks: ParameterBlock[] = [];
  #blockCount = 0;
  readonly #residualBlocks: ResidualBlock[] = [];
  #residualCount = 0;
  #revision = 0;

  /** Parameter blocks in column order. */
  public get blocks(): readonly ParameterBlock[] {
    const blocks = this.#blocks;
    if (blocks.length !== this.#blockCount) {
      blocks.length = this.#blockCount;
    }
    return blocks;
  }

  /** Residual blocks in insertion order. */
  public get residualBlocks(): readonly ResidualBlock[] {
    const residuals = this.#residualBlocks;
    if (residuals.length !== this.#residualCount) {
      residuals.length = this.#residualCount;
    }
    return residuals;
  }

  /**
   * Counts the changes to the problem's structure (`clear` and every block added), so that a
   * solver can tell whether what it derived from the problem is still current.
   */
  public get revision(): number {
    return this.#revision;
  }

  /**
   * A parameter block over `data`, not yet in any problem (see `adoptParameterBlock`): on
   * `manifold` when given, else a vector whose `angular` components wrap to [-π, π). Throws
   * RangeError when the manifold's ambient size is not the data's length.
   */
  public static parameterBlock(
    data: Float64Array,
    options?: { readonly angular?: readonly boolean[]; readonly manifold?: Manifold; readonly constant?: boolean },
  ): ParameterBlock {
    const manifold = options?.manifold ?? vectorManifold(data.length, options?.angular);
    if (manifold.ambientSize !== data.length) {
      throw new RangeError(`parameter block has ${data.length} values, its manifold ${manifold.ambientSize}`);
    }
    return new StoredParameterBlock(data, manifold, manifold.tangentSize, options?.constant ?? false);
  }

  /** Adds a parameter block over `data` (see `Problem.parameterBlock`) and returns its index. */
  public addParameterBlock(
    data: Float64Array,
    options?: { readonly angular?: readonly boolean[]; readonly manifold?: Manifold; readonly constant?: boolean },
  ): number {
    return this.adoptParameterBlock(Problem.parameterBlock(data, options));
  }

  /** Appends an existing parameter block (one block may serve successive problems); returns its index. */
  public adoptParameterBlock(block: ParameterBlock): number {
    this.#revision++;
    this.#blocks[this.#blockCount] = block;
    return this.#blockCount++;
  }

  /**
   * Adds a residual block. Throws RangeError when the number of blocks or a block's size does
   * not match the cost function's `parameterBlockSizes`, or an index is unknown.
   */
  public addResidualBlock(
    cost: CostFunction,
    loss: LossFunction | undefined,
    blockIndices: readonly number[],
  ): number {
    const sizes = cost.parameterBlockSizes;
    if (sizes.length !== blockIndices.length) {
      throw new RangeError(
        `residual block expects ${sizes.length} parameter blocks, got ${blockIndices.length}`,
      );
    }
    const k = blockIndices.length;
    const parameters = new Array<Float64Array>(k);
    const indices = new Array<number>(k);
    for (let i = 0; i < k; i++) {
      const b = blockIndices[i]!;
      const block = this.#block(b);
      if (block == undefined) {
        throw new RangeError(`residual block refers to unknown parameter block ${b}`);
      }
      if (block.data.length !== sizes[i]) {
        throw new RangeError(
          `parameter ${i} of the residual block has ${block.data.length} values, the cost function expects ${sizes[i]!}`,
        );
      }
      parameters[i] = block.data;
      indices[i] = b;
    }
    this.#revision++;
    this.#residualBlocks[this.#residualCount] = new StoredResidualBlock(cost, loss, indices, parameters);
    return this.#residualCount++;
  }

  /**
   * Adds again a residual block of this problem from before `clear`, over the same parameter
   * data, now at `blockIndices` (which must hold those data arrays). Returns its index. Throws
   * RangeError for a block this problem did not create or indices over other data.
   */
  public readdResidualBlock(block: ResidualBlock, blockIndices: readonly number[]): number {
    if (!(block instanceof StoredResidualBlock) || blockIndices.length !== block.parameters.length) {
      throw new RangeError("readdResidualBlock takes a residual block built by addResidualBlock");
    }
    for (let i = 0; i < blockIndices.length; i++) {
      if (this.#block(blockIndices[i]!)?.data !== block.parameters[i]) {
        throw new RangeError(`parameter ${i} of the re-added residual block is not over the same data`);
      }
      block.blockIndices[i] = blockIndices[i]!;
    }
    this.#revision++;
    this.#residualBlocks[this.#residualCount] = block;
    return this.#residualCount++;
  }

  /** Removes every block (to build the next problem over the same objects). Returns this. */
  public clear(): this {
    this.#revision++;
    this.#blockCount = 0;
    this.#residualCount = 0;
    return this;
  }

  /** The residual block at `index` (as `residualBlocks[index]`, also while a rebuild adds blocks). */
  public residualBlock(index: number): ResidualBlock | undefined {
    return index >= 0 && index < this.#residualCount ? this.#residualBlocks[index] : undefined;
  }

  /** The parameter block at `index`, undefined when there is none. */
  #block(index: number): ParameterBlock | undefined {
    return index >= 0 && index < this.#blockCount ? this.#blocks[index] : undefined;
  }
}

/**
 * The parameter blocks `Problem.parameterBlock` makes. A class, not an object literal, as
 * GraphProblem's slots are (V8 would allocate the literal's objects in the old generation, where
 * a dead one keeps its young data alive until the next full collection).
 */
class StoredParameterBlock implements ParameterBlock {
  public constructor(
    public readonly data: Float64Array,
    public readonly manifold: Manifold,
    public readonly localSize: number,
    public constant: boolean,
  ) {}
}

/** The residual blocks a Problem creates: their indices move when the problem is rebuilt. */
class StoredResidualBlock implements ResidualBlock {
  public constructor(
    public readonly cost: CostFunction,
    public readonly loss: LossFunction | undefined,
    public readonly blockIndices: number[],
    public readonly parameters: readonly Float64Array[],
  ) {}
}

/** Plain (non-wrapping) and single-angle vector manifolds are shared: one per size. */
const PLAIN: VectorManifold[] = [];
const ANGLE = new VectorManifold(1, [true]);

function vectorManifold(size: number, angular: readonly boolean[] | undefined): VectorManifold {
  if (angular?.some((a) => a) === true) {
    return size === 1 ? ANGLE : new VectorManifold(size, angular);
  }
  return (PLAIN[size] ??= new VectorManifold(size));
}
