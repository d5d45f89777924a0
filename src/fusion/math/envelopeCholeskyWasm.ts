import { envelopeCholesky } from "./envelopeCholesky";
import { ENVELOPE_CHOLESKY_WASM } from "./envelopeCholeskyWasm.bytes";

/** The compiled factorization (assembly/envelopeCholesky.ts) and the memory it works in. */
interface Kernel {
  readonly memory: WebAssembly.Memory;
  readonly factor: (l: number, n: number, first: number, rowBase: number, inv: number) => number;
}

const PAGE = 65536;

/** Not tried yet (undefined), unavailable here, or the instance of this realm (a worker has its own). */
let kernel: Kernel | "unavailable" | undefined;
let doubles = new Float64Array(0);
let ints = new Int32Array(0);

function loadKernel(): Kernel | "unavailable" {
  try {
    const bytes = Uint8Array.from(atob(ENVELOPE_CHOLESKY_WASM), (c) => c.charCodeAt(0));
    // Synchronous: the module is 2 KB, under the size a browser's main thread compiles synchronously.
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
    const { memory, factor } = exports;
    if (!(memory instanceof WebAssembly.Memory) || typeof factor !== "function") {
      return "unavailable";
    }
    return { memory, factor: factor as Kernel["factor"] };
  } catch {
    // No WebAssembly here, or a content security policy that forbids compiling it.
    return "unavailable";
  }
}

/** Whether this realm factorizes with WebAssembly (false: `envelopeCholeskyWasm` runs the JavaScript one). */
export function envelopeCholeskyWasmAvailable(): boolean {
  kernel ??= loadKernel();
  return kernel !== "unavailable";
}

/**
 * `envelopeCholesky(l, n, first, rowBase, inv)`, the same factor and return value bit for bit,
 * computed by the WebAssembly build of the same algorithm (assembly/envelopeCholesky.ts) where the
 * runtime can compile it, and by `envelopeCholesky` itself where it cannot (or should the module
 * trap on a malformed envelope). The arrays are copied into the module's memory and back (a few
 * µs against the 100 µs of a jackal 3D factorization); that memory grows to the largest problem
 * factorized, as the caller's own arrays did.
 */
export function envelopeCholeskyWasm(l: Float64Array, n: number, first: Int32Array, rowBase: Int32Array, inv: Float64Array): boolean {
  if (!envelopeCholeskyWasmAvailable() || n <= 0) {
    return envelopeCholesky(l, n, first, rowBase, inv);
  }
  const { memory, factor } = kernel as Kernel;
  let used = 0;
  for (let i = 0; i < n; i++) {
    used = Math.max(used, rowBase[i]! + i + 1);
  }
  if (!(used <= l.length) || first.length < n || rowBase.length < n || inv.length < n) {
    return envelopeCholesky(l, n, first, rowBase, inv);
  }
  // Byte offsets: l, then inv, then first and rowBase (doubles first keeps them 8-aligned).
  const invAt = used * 8;
  const firstAt = invAt + n * 8;
  const rowBaseAt = firstAt + n * 4;
  const bytes = rowBaseAt + n * 4;
  if (memory.buffer.byteLength < bytes) {
    try {
      memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    } catch {
      // The engine would not give the module that much memory; the caller's arrays hold it.
      return envelopeCholesky(l, n, first, rowBase, inv);
    }
  }
  if (doubles.buffer !== memory.buffer) {
    doubles = new Float64Array(memory.buffer);
    ints = new Int32Array(memory.buffer);
  }
  doubles.set(l.subarray(0, used), 0);
  // inv too: rows a failing factorization does not reach keep the caller's values, as in JavaScript.
  doubles.set(inv.subarray(0, n), invAt / 8);
  ints.set(first.subarray(0, n), firstAt / 4);
  ints.set(rowBase.subarray(0, n), rowBaseAt / 4);
  let ok: boolean;
  try {
    ok = factor(0, n, firstAt, rowBaseAt, invAt) !== 0;
  } catch {
    return envelopeCholesky(l, n, first, rowBase, inv);
  }
  l.set(doubles.subarray(0, used), 0);
  inv.set(doubles.subarray(invAt / 8, invAt / 8 + n), 0);
  return ok;
}
