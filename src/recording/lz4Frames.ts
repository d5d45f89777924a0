/* eslint-disable no-underscore-dangle -- Emscripten names a module's C entry points with a leading underscore */
/** What Lockstep uses of @foxglove/wasm-lz4's WebAssembly module (its C entry points and heap). */
interface Lz4Module {
  readonly HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _createDecompressionContext(): number;
  _decompressFrame(context: number, dest: number, destSize: number, src: number, srcSize: number): number;
}

/**
 * Contexts abandoned (one per frame that failed) before the module is replaced by a fresh
 * instance: the module has no call that frees a context, so each keeps its buffers (up to twice
 * the frame's block size) until the whole instance goes.
 */
const ABANDONED_BEFORE_RENEWAL = 4;

/**
 * LZ4 frame decompression with @foxglove/wasm-lz4's own WebAssembly module, but a decompression
 * context that never outlives a failure. The package's `decompress` keeps one context for the
 * life of the process, and a frame that fails (cut short, corrupt) leaves it mid-frame: every
 * frame after it then fails too (lz4 documents that a context must be recreated after an error,
 * lz4/lz4#302), so one damaged chunk cost every later lz4 chunk of a recording.
 *
 * Guarantees: a failed frame never affects the next one (it gets a new context); memory stays
 * bounded, because after ABANDONED_BEFORE_RENEWAL abandoned contexts a fresh module instance is
 * made (in the background) and the old one, with every context it holds, is dropped. Runs in
 * Node, the browser and a Web Worker, wherever the package itself runs.
 */
export class Lz4Frames {
  #module: Lz4Module;
  #context: number | undefined;
  #abandoned = 0;
  #renewing = false;

  private constructor(module: Lz4Module) {
    this.#module = module;
  }

  /** Loads the WebAssembly module (once per instance of this class). */
  public static async load(): Promise<Lz4Frames> {
    return new Lz4Frames(await createModule());
  }

  /**
   * Decompresses one LZ4 frame into at most `size` bytes; returns the bytes it holds (a copy out
   * of the module's memory). Throws when the frame is damaged; the next call is not affected.
   */
  public decompress(src: Uint8Array, size: number): Uint8Array {
    const module = this.#module;
    const context = (this.#context ??= module._createDecompressionContext());
    const srcPointer = module._malloc(src.byteLength);
    const destPointer = module._malloc(size);
    try {
      module.HEAPU8.set(src, srcPointer);
      const produced = module._decompressFrame(context, destPointer, size, srcPointer, src.byteLength);
      if (produced < 0) {
        this.#abandon();
        throw new Error("the lz4 frame does not decompress (corrupt or cut short)");
      }
      // HEAPU8 is read after the call: the module's memory may have grown (a new buffer).
      return module.HEAPU8.slice(destPointer, destPointer + produced);
    } finally {
      module._free(srcPointer);
      module._free(destPointer);
    }
  }

  /** Drops the context a failed frame left mid-frame; renews the module after a few. */
  #abandon(): void {
    this.#context = undefined;
    this.#abandoned++;
    if (this.#abandoned >= ABANDONED_BEFORE_RENEWAL && !this.#renewing) {
      this.#renewing = true;
      createModule().then(
        (fresh) => {
          this.#module = fresh;
          this.#context = undefined;
          this.#abandoned = 0;
          this.#renewing = false;
        },
        () => {
          // Renewal failed (out of memory?): the current module goes on, abandoning contexts.
          this.#renewing = false;
        },
      );
    }
  }
}

async function createModule(): Promise<Lz4Module> {
  // The package's own Emscripten factory (its index.js calls it once, for its shared context).
  const imported = (await import("@foxglove/wasm-lz4/dist/wasm-lz4.js")) as unknown as
    | (() => Promise<unknown>)
    | { default: () => Promise<unknown> };
  const factory = typeof imported === "function" ? imported : imported.default;
  return (await factory()) as Lz4Module;
}
