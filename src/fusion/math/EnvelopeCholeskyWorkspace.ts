import { envelopeCholeskyTrimmed, trimmedStarts } from "./envelopeCholesky";
import { type EnvelopeCholeskyExports, instantiateEnvelopeCholesky } from "./envelopeCholeskyWasm";
import { envelopeSolve } from "./envelopeSolve";

const PAGE = 65536;

/**
 * The storage of one envelope (skyline) Cholesky factor and the solves with it: the caller writes
 * the matrix into `l` (row i over columns `first[i]` … i at `l[rowBase[i] + j]`, as given to
 * `setEnvelope`), `factor()` leaves the factor there and 1/L_ii in `inv`, and `solve(b)` solves
 * L·Lᵀ·x = b in place.
 *
 * Guarantees: the factor, `inv`, `start` and every answer are bit for bit those of
 * `envelopeCholeskyTrimmed` and `envelopeSolve` over the same arrays. Where WebAssembly can be
 * compiled, the arrays live in a memory of the workspace's own (an instance of
 * assembly/envelopeCholesky.ts and assembly/envelopeSolve.ts, the same algorithms term for term)
 * and both run there without copying the factor; elsewhere, or once that memory cannot grow,
 * they are plain arrays and the JavaScript functions run. `l`, `inv` and `start` are replaced
 * (their contents lost) only by a `setEnvelope` that needs more room than the workspace has, so
 * read them after it; storage only grows, to the largest envelope met.
 *
 * ```ts
 * const ws = new EnvelopeCholeskyWorkspace();
 * ws.setEnvelope(n, first, rowBase, entries);
 * ws.l.set(a.subarray(0, entries));
 * if (ws.factor()) ws.solve(b);
 * ```
 */
export class EnvelopeCholeskyWorkspace {
  #l = new Float64Array(0);
  #inv = new Float64Array(0);
  #start = new Int32Array(0);
  #first = new Int32Array(0);
  #rowBase = new Int32Array(0);
  /** The right-hand side being solved (WebAssembly only: b is copied in and out). */
  #x = new Float64Array(0);
  #n = 0;
  #wasm: EnvelopeCholeskyExports | undefined;
  // Byte offsets in the instance's memory.
  #invAt = 0;
  #xAt = 0;
  #firstAt = 0;
  #rowBaseAt = 0;
  #startAt = 0;

  /** @param webAssembly false to use the JavaScript functions even where WebAssembly is available */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- a single option
  public constructor(webAssembly = true) {
    this.#wasm = webAssembly ? instantiateEnvelopeCholesky() : undefined;
  }

  /** The matrix, then its factor (skyline storage over `setEnvelope`'s layout). */
  public get l(): Float64Array {
    return this.#l;
  }

  /** 1/L_ii after a factorization. */
  public get inv(): Float64Array {
    return this.#inv;
  }

  /** Per row, the factorization's first column: its first non-zero at or after first[i]. */
  public get start(): Int32Array {
    return this.#start;
  }

  /** Whether the factorization and the solves run as WebAssembly. */
  public get webAssembly(): boolean {
    return this.#wasm != undefined;
  }

  /**
   * Sets the layout of the next factorizations: n rows, row i over columns first[i] … i at
   * rowBase[i] + j, `entries` stored values in all (at least max(rowBase[i] + i) + 1). Throws a
   * RangeError for a layout that points outside `entries` (the factorization would write there).
   */
  public setEnvelope(n: number, first: Int32Array, rowBase: Int32Array, entries: number): void {
    for (let i = 0; i < n; i++) {
      const f = first[i]!;
      if (!(f >= 0 && f <= i && rowBase[i]! + f >= 0 && rowBase[i]! + i < entries)) {
        throw new RangeError(`envelope row ${i} (first column ${f}, row base ${rowBase[i] ?? "missing"}) lies outside its ${entries} entries`);
      }
    }
    this.#reserve(n, entries);
    this.#n = n;
    this.#first.set(first.subarray(0, n));
    this.#rowBase.set(rowBase.subarray(0, n));
  }

  /**
   * Factorizes the matrix in `l` in place (`envelopeCholeskyTrimmed`, which requires that no
   * entry is −0); false at the first pivot that is not a finite number > 0 (L partly written).
   */
  public factor(): boolean {
    const n = this.#n;
    if (this.#wasm == undefined) {
      return envelopeCholeskyTrimmed(this.#l, n, this.#first, this.#rowBase, this.#inv, this.#start);
    }
    trimmedStarts(this.#l, n, this.#first, this.#rowBase, this.#start);
    return this.#wasm.factor(0, n, this.#startAt, this.#rowBaseAt, this.#invAt) !== 0;
  }

  /** Solves L·Lᵀ·x = b in place with the last factor (`envelopeSolve` over the full envelope). */
  public solve(b: Float64Array): void {
    const n = this.#n;
    if (this.#wasm == undefined) {
      envelopeSolve(this.#l, n, this.#first, this.#rowBase, this.#inv, b);
      return;
    }
    this.#x.set(b.subarray(0, n));
    this.#wasm.solve(0, n, this.#firstAt, this.#rowBaseAt, this.#invAt, this.#xAt);
    b.set(this.#x.subarray(0, n));
  }

  #reserve(n: number, entries: number): void {
    if (n <= this.#first.length && entries <= this.#l.length) {
      return;
    }
    const rows = Math.max(n, 2 * this.#first.length);
    const values = Math.max(entries, 2 * this.#l.length);
    if (this.#wasm != undefined && this.#layOut(rows, values)) {
      return;
    }
    this.#wasm = undefined;
    this.#l = new Float64Array(values);
    this.#inv = new Float64Array(rows);
    this.#start = new Int32Array(rows);
    this.#first = new Int32Array(rows);
    this.#rowBase = new Int32Array(rows);
    this.#x = new Float64Array(0);
  }

  /** Views of the instance's memory for this many rows and values; false when it cannot grow. */
  #layOut(rows: number, values: number): boolean {
    const memory = this.#wasm!.memory;
    // Doubles first keeps every array aligned.
    this.#invAt = values * 8;
    this.#xAt = this.#invAt + rows * 8;
    this.#firstAt = this.#xAt + rows * 8;
    this.#rowBaseAt = this.#firstAt + rows * 4;
    this.#startAt = this.#rowBaseAt + rows * 4;
    const bytes = this.#startAt + rows * 4;
    if (memory.buffer.byteLength < bytes) {
      try {
        memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
      } catch {
        // The engine would not give the instance that much memory: plain arrays from here on.
        return false;
      }
    }
    const buffer = memory.buffer;
    this.#l = new Float64Array(buffer, 0, values);
    this.#inv = new Float64Array(buffer, this.#invAt, rows);
    this.#x = new Float64Array(buffer, this.#xAt, rows);
    this.#first = new Int32Array(buffer, this.#firstAt, rows);
    this.#rowBase = new Int32Array(buffer, this.#rowBaseAt, rows);
    this.#start = new Int32Array(buffer, this.#startAt, rows);
    return true;
  }
}
