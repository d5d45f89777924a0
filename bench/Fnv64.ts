/**
 * The 64-bit FNV-style fold W3.md uses for its stream and output hashes:
 * `h = (h XOR x) * 1099511628211 (mod 2^64)`, starting at `1469598103934665603`.
 *
 * The state is kept as two uint32 halves so folding allocates nothing (no `bigint`), which lets
 * the W3-10x heap check hash 10 million messages without growing the heap. Values are folded as
 * unsigned 64-bit integers; callers pass them as a safe non-negative integer, as halves, or as
 * a 64-bit base plus a safe offset (W3E's `1.7e18 + stamp`).
 *
 * ```ts
 * const h = new Fnv64();
 * h.fold(42).fold(7);
 * h.hex(); // 16 lowercase hex digits
 * ```
 */
export class Fnv64 {
  #hi = 0x14650fb0; // 1469598103934665603 = 0x14650FB0_739D0383
  #lo = 0x739d0383;

  /** Folds a non-negative safe integer (< 2^53). Throws RangeError otherwise. */
  public fold(x: number): this {
    if (!(x >= 0 && x <= Number.MAX_SAFE_INTEGER) || !Number.isInteger(x)) {
      throw new RangeError(`Fnv64.fold: ${x} is not a non-negative safe integer`);
    }
    return this.foldHalves(Math.floor(x / TWO_32), x >>> 0);
  }

  /**
   * Folds `base + x` as an unsigned 64-bit value, where `base = baseHi * 2^32 + baseLo` and `x` is
   * a non-negative safe integer (the sum wraps mod 2^64, as the hash definition does).
   */
  public foldOffset(baseHi: number, baseLo: number, x: number): this {
    if (!(x >= 0 && x <= Number.MAX_SAFE_INTEGER) || !Number.isInteger(x)) {
      throw new RangeError(`Fnv64.foldOffset: ${x} is not a non-negative safe integer`);
    }
    const lo = baseLo + (x >>> 0);
    const carry = lo >= TWO_32 ? 1 : 0;
    return this.foldHalves((baseHi + Math.floor(x / TWO_32) + carry) >>> 0, lo >>> 0);
  }

  /** Folds the 64-bit value `hi * 2^32 + lo` (both taken mod 2^32). */
  public foldHalves(hi: number, lo: number): this {
    const xHi = (this.#hi ^ hi) >>> 0;
    const xLo = (this.#lo ^ lo) >>> 0;
    // The prime is 2^40 + 0x1B3, so h * prime = (h << 40) + h * 0x1B3 (mod 2^64).
    const loProd = xLo * 0x1b3; // < 2^41: exact in a double
    const carry = Math.floor(loProd / TWO_32);
    const hiProd = (Math.imul(xHi, 0x1b3) + carry) >>> 0;
    this.#lo = loProd >>> 0;
    this.#hi = (hiProd + ((xLo << 8) >>> 0)) >>> 0;
    return this;
  }

  /** The current value as 16 lowercase hex digits (as W3.md prints it). */
  public hex(): string {
    return this.#hi.toString(16).padStart(8, "0") + this.#lo.toString(16).padStart(8, "0");
  }

  /** The current value as a bigint. */
  public toBigInt(): bigint {
    return (BigInt(this.#hi) << 32n) | BigInt(this.#lo);
  }
}

const TWO_32 = 4294967296;
