import { ENVELOPE_CHOLESKY_WASM } from "./envelopeCholeskyWasm.bytes";

/** The compiled module's exports (assembly/envelopeCholesky.ts and assembly/envelopeSolve.ts); offsets in bytes. */
export interface EnvelopeCholeskyExports {
  readonly memory: WebAssembly.Memory;
  /** `envelopeCholesky` over the arrays at these offsets of `memory`; 1 for true, 0 for false. */
  readonly factor: (l: number, n: number, first: number, rowBase: number, inv: number) => number;
  /** `envelopeSolve` over the arrays at these offsets of `memory`. */
  readonly solve: (l: number, n: number, first: number, rowBase: number, inv: number, b: number) => void;
}

/** Not tried yet (undefined), unavailable here, or the module compiled in this realm (a worker compiles its own). */
let compiled: WebAssembly.Module | "unavailable" | undefined;

function compile(): WebAssembly.Module | "unavailable" {
  try {
    const bytes = Uint8Array.from(atob(ENVELOPE_CHOLESKY_WASM), (c) => c.charCodeAt(0));
    // Synchronous: the module is 3 KB, under the size a browser's main thread compiles synchronously.
    return new WebAssembly.Module(bytes);
  } catch {
    // No WebAssembly here, or a content security policy that forbids compiling it.
    return "unavailable";
  }
}

/**
 * A new instance of the envelope Cholesky module, with a memory of its own, or undefined where
 * WebAssembly cannot be compiled or instantiated here (the caller then runs the JavaScript
 * functions, which compute the same values).
 */
export function instantiateEnvelopeCholesky(): EnvelopeCholeskyExports | undefined {
  compiled ??= compile();
  if (compiled === "unavailable") {
    return undefined;
  }
  try {
    const { exports } = new WebAssembly.Instance(compiled, {});
    const { memory, factor, solve } = exports;
    if (!(memory instanceof WebAssembly.Memory) || typeof factor !== "function" || typeof solve !== "function") {
      return undefined;
    }
    return { memory, factor: factor as EnvelopeCholeskyExports["factor"], solve: solve as EnvelopeCholeskyExports["solve"] };
  } catch {
    return undefined;
  }
}
