/**
 * Robust loss functions ρ(s) of the squared residual norm `s = ‖r‖²`, as Ceres defines them
 * (fuse_loss wraps Ceres' losses; reference/fuse.md §1.5). A block's cost is `½ρ(s)`.
 *
 * `evaluate(s, rho)` writes `[ρ(s), ρ'(s), ρ''(s)]` and allocates nothing. As in Ceres, ρ' is
 * floored at the smallest positive normal double where the closed form could reach 0 (so the
 * corrector's `√ρ'` stays usable) — except Tukey's outlier region, which is exactly 0.
 */
export interface LossFunction {
  /** fuse's type name, e.g. `"fuse_loss::HuberLoss"`. */
  readonly type: string;
  /** Writes `[ρ, ρ', ρ'']` at `s ≥ 0` into `rho`. */
  evaluate(s: number, rho: Float64Array): void;
}

const MIN_RHO1 = 2.2250738585072014e-308; // std::numeric_limits<double>::min()

/** ρ(s) = s: plain least squares (what a constraint without a loss uses). */
export class TrivialLoss implements LossFunction {
  public readonly type = "fuse_loss::TrivialLoss";
  public evaluate(s: number, rho: Float64Array): void {
    trivial(s, rho);
  }
}

/**
 * The losses with one scale parameter `a` (> 0, finite; default 1), with `a²` and `1/a²` at hand.
 * Throws RangeError naming the loss when `a` is invalid.
 */
abstract class ScaledLoss implements LossFunction {
  public abstract readonly type: string;
  protected readonly a: number = 0;
  protected readonly a2: number = 0;
  protected readonly inverseA2: number = 0;

  protected constructor(a: number, what: string) {
    this.a = positive(a, `${what} a`);
    this.a2 = a * a;
    this.inverseA2 = 1 / this.a2;
  }

  public abstract evaluate(s: number, rho: Float64Array): void;
}

/** Huber: ρ = s for s ≤ a², else 2a√s − a². Default a = 1 (fuse_loss). */
export class HuberLoss extends ScaledLoss {
  public readonly type = "fuse_loss::HuberLoss";
  public constructor(a = 1) {
    super(a, "HuberLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    if (s > this.a2) {
      const r = Math.sqrt(s);
      rho[0] = 2 * this.a * r - this.a2;
      rho[1] = floorRho1(this.a / r);
      rho[2] = -rho[1] / (2 * s);
    } else {
      trivial(s, rho);
    }
  }
}

/** Cauchy: ρ = a²·log(1 + s/a²). Default a = 1. */
export class CauchyLoss extends ScaledLoss {
  public readonly type = "fuse_loss::CauchyLoss";
  public constructor(a = 1) {
    super(a, "CauchyLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    const sum = 1 + s * this.inverseA2;
    const inv = 1 / sum;
    rho[0] = this.a2 * Math.log(sum);
    rho[1] = floorRho1(inv);
    rho[2] = -this.inverseA2 * inv * inv;
  }
}

/** Tukey biweight: ρ = a²/3·(1 − (1 − s/a²)³) for s ≤ a², else a²/3. Default a = 1. */
export class TukeyLoss extends ScaledLoss {
  public readonly type = "fuse_loss::TukeyLoss";
  public constructor(a = 1) {
    super(a, "TukeyLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    if (s <= this.a2) {
      const v = 1 - s / this.a2;
      const v2 = v * v;
      rho[0] = (this.a2 / 3) * (1 - v2 * v);
      rho[1] = v2;
      rho[2] = (-2 / this.a2) * v;
    } else {
      rho[0] = this.a2 / 3;
      rho[1] = 0;
      rho[2] = 0;
    }
  }
}

/** Soft L1: ρ = 2a²·(√(1 + s/a²) − 1). Default a = 1. */
export class SoftLOneLoss extends ScaledLoss {
  public readonly type = "fuse_loss::SoftLOneLoss";
  public constructor(a = 1) {
    super(a, "SoftLOneLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    const sum = 1 + s * this.inverseA2;
    const tmp = Math.sqrt(sum);
    rho[0] = 2 * this.a2 * (tmp - 1);
    rho[1] = floorRho1(1 / tmp);
    rho[2] = (-this.inverseA2 * rho[1]) / (2 * sum);
  }
}

/** Arctan: ρ = a·atan2(s, a) (saturates at aπ/2). Default a = 1. */
export class ArctanLoss extends ScaledLoss {
  public readonly type = "fuse_loss::ArctanLoss";
  public constructor(a = 1) {
    super(a, "ArctanLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    const sum = 1 + s * s * this.inverseA2;
    const inv = 1 / sum;
    rho[0] = this.a * Math.atan2(s, this.a);
    rho[1] = floorRho1(inv);
    rho[2] = -2 * s * this.inverseA2 * inv * inv;
  }
}

/** Welsch: ρ = a²·(1 − exp(−s/a²)). Default a = 1. */
export class WelschLoss extends ScaledLoss {
  public readonly type = "fuse_loss::WelschLoss";
  public constructor(a = 1) {
    super(a, "WelschLoss");
  }
  public evaluate(s: number, rho: Float64Array): void {
    const e = Math.exp(-s / this.a2);
    rho[0] = this.a2 * (1 - e);
    rho[1] = floorRho1(e);
    rho[2] = -rho[1] / this.a2;
  }
}

/**
 * Tolerant: ρ = b·log(1 + exp((s − a)/b)) − b·log(1 + exp(−a/b)) (Ceres' form, with its large-x
 * linear branch). Defaults a = 1, b = 1.
 */
export class TolerantLoss implements LossFunction {
  public readonly type = "fuse_loss::TolerantLoss";
  readonly #a: number = 0;
  readonly #b: number = 0;
  readonly #c: number = 0;
  public constructor(a = 1, b = 1) {
    if (!(a >= 0) || !Number.isFinite(a)) {
      throw new RangeError(`TolerantLoss a must be a finite number ≥ 0, got ${a}`);
    }
    this.#a = a;
    this.#b = positive(b, "TolerantLoss b");
    this.#c = b * Math.log(1 + Math.exp(-a / b));
  }
  public evaluate(s: number, rho: Float64Array): void {
    const x = (s - this.#a) / this.#b;
    if (x > 36.7) {
      trivial(s - this.#a - this.#c, rho);
    } else {
      const ex = Math.exp(x);
      rho[0] = this.#b * Math.log(1 + ex) - this.#c;
      rho[1] = floorRho1(ex / (1 + ex));
      rho[2] = 0.5 / (this.#b * (1 + Math.cosh(x)));
    }
  }
}

/**
 * A loss as configured (fuse's `loss` parameter namespace; the same shape as the fusion core's
 * `LossConfig`): `type` plus numeric `parameters` (`a`, and `b` for TolerantLoss; default 1).
 */
export interface LossSpec {
  /** `"fuse_loss::HuberLoss"` or the short forms `"HuberLoss"` / `"huber"`. */
  readonly type: string;
  /** Numeric parameters by name. */
  readonly parameters?: Readonly<Record<string, number>>;
}

/**
 * Builds a loss from its configuration. `undefined`/`null` gives undefined (no loss: plain least
 * squares). Throws RangeError naming the type when it is unknown, a parameter is not one the type
 * takes, or a value is invalid.
 */
export function createLoss(spec: LossSpec | null | undefined): LossFunction | undefined {
  if (spec == undefined) {
    return undefined;
  }
  const short = spec.type.replace(/^fuse_loss::/, "").replace(/Loss$/, "").toLowerCase();
  const params = spec.parameters ?? {};
  const allowed = short === "tolerant" ? ["a", "b"] : short === "trivial" ? [] : ["a"];
  for (const key of Object.keys(params)) {
    if (!allowed.includes(key)) {
      throw new RangeError(
        `loss "${spec.type}" has no parameter "${key}" (it takes ${allowed.length === 0 ? "none" : allowed.join(", ")})`,
      );
    }
  }
  const a = params.a;
  switch (short) {
    case "trivial":
      return new TrivialLoss();
    case "huber":
      return new HuberLoss(a);
    case "cauchy":
      return new CauchyLoss(a);
    case "tukey":
      return new TukeyLoss(a);
    case "softlone":
      return new SoftLOneLoss(a);
    case "arctan":
      return new ArctanLoss(a);
    case "welsch":
      return new WelschLoss(a);
    case "tolerant":
      return new TolerantLoss(a, params.b);
    default:
      throw new RangeError(
        `unknown loss type "${spec.type}"; supported: fuse_loss::{Trivial,Huber,Cauchy,Tukey,` +
          `SoftLOne,Arctan,Welsch,Tolerant}Loss`,
      );
  }
}

/** [ρ, ρ′, ρ″] = [value, 1, 0]: the quadratic region (ρ′ = 1 exactly). */
function trivial(value: number, rho: Float64Array): void {
  rho[0] = value;
  rho[1] = 1;
  rho[2] = 0;
}

/** ρ′ floored at the smallest positive normal double (see the module comment). */
function floorRho1(rho1: number): number {
  return Math.max(MIN_RHO1, rho1);
}

function positive(value: number, what: string): number {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${what} must be a finite number > 0, got ${value}`);
  }
  return value;
}
