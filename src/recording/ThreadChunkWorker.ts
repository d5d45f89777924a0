import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import * as zlib from "node:zlib";

import { canHandOver, type ChunkWorker, type CompressedRecords, type CrcResult } from "./ChunkWorker";

/**
 * The thread's whole program. A CRC-32 uses @node-rs/crc32 (SIMD: three to four times Node's
 * zlib.crc32 here) when its path is given and it agrees with zlib on a probe, else Node's native
 * zlib.crc32. Decompression uses the same WebAssembly decompressors as the reading thread
 * (@foxglove/wasm-zstd, -lz4, -bz2, from the paths given), so the bytes are those the reader would
 * produce. Plain CommonJS text, so that it runs the same from the sources and the bundle.
 */
const PROGRAM = `
const { parentPort, workerData } = require("node:worker_threads");
const zlib = require("node:zlib");
let crc32 = zlib.crc32;
try {
  const fast = require(workerData.fastCrcPath).crc32;
  const probe = Uint8Array.of(0x4c, 0x6f, 0x63, 0x6b, 0xff, 0x00, 0x7f);
  if (fast(probe) === zlib.crc32(probe)) {
    crc32 = fast;
  }
} catch {
  // No fast CRC on this platform: zlib's.
}
const decompressors = {};
let loaded = (async () => {
  const zstd = require(workerData.zstdPath);
  const lz4 = require(workerData.lz4Path);
  await Promise.all([zstd.isLoaded, lz4.isLoaded]);
  decompressors.zstd = zstd.decompress;
  decompressors.lz4 = lz4;
})();
loaded.catch(() => undefined);
// bz2 (ROS 1 bags only) is loaded on its own: without it, zstd and lz4 still work.
const bz2Loaded = (async () => {
  const bz2 = require(workerData.bz2Path);
  const instance = await (bz2.default ?? bz2).init();
  decompressors.bz2 = (data, size) => instance.decompress(data, size, { small: false });
})();
bz2Loaded.catch(() => undefined);
// @foxglove/wasm-lz4 keeps one decompression context, which a failed frame leaves mid-frame (every
// later frame would fail): after a failure the package is loaded afresh, a new module instance
// with a new context, and the old one is dropped.
async function reloadLz4() {
  delete require.cache[require.resolve(workerData.lz4Path)];
  const lz4 = require(workerData.lz4Path);
  await lz4.isLoaded;
  decompressors.lz4 = lz4;
}
// The whole of an ArrayBuffer of its own: small outputs of Buffer.allocUnsafe share Node's pool.
function owned(bytes) {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer
    : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
parentPort.on("message", async (request) => {
  const { id, buffer } = request;
  if (request.where === undefined) {
    parentPort.postMessage({ id, crc: crc32(new Uint8Array(buffer)), buffer }, [buffer]);
    return;
  }
  try {
    const { compression, offset, length, uncompressedSize } = request.where;
    await (compression === "bz2" ? bz2Loaded : loaded);
    const decompress = decompressors[compression];
    if (decompress === undefined) {
      throw new Error("no " + compression + " decompressor on the chunk thread");
    }
    const out = decompress(new Uint8Array(buffer, offset, length), uncompressedSize);
    if (out.byteLength !== uncompressedSize) {
      throw new Error(compression + " decompression gave " + out.byteLength + " bytes where the chunk declares " + uncompressedSize);
    }
    const records = owned(out);
    parentPort.postMessage({ id, crc: crc32(new Uint8Array(records)), buffer: records }, [records]);
  } catch (err) {
    if (request.where.compression === "lz4") {
      loaded = loaded.then(reloadLz4);
      loaded.catch(() => undefined);
    }
    parentPort.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
});
`;

/** Where a package is installed, or undefined. */
function packagePath(name: string): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(name);
  } catch {
    return undefined;
  }
}

type Reply =
  | { readonly id: number; readonly crc: number; readonly buffer: ArrayBuffer; readonly error?: undefined }
  | { readonly id: number; readonly error: string };

interface Waiting {
  readonly resolve: (result: CrcResult) => void;
  readonly reject: (error: Error) => void;
}

const ZSTD_PATH = packagePath("@foxglove/wasm-zstd");
const LZ4_PATH = packagePath("@foxglove/wasm-lz4");
const BZ2_PATH = packagePath("@foxglove/wasm-bz2");

/** Threads a ThreadChunkWorker starts at most by default (a reader keeps that many chunks prepared ahead). */
export const DEFAULT_CHUNK_THREADS = 2;

/** Options of a ThreadChunkWorker. */
export interface ThreadChunkWorkerOptions {
  /**
   * How many threads work on chunks, each on one at a time; default: the machine's available
   * parallelism, at most `DEFAULT_CHUNK_THREADS`. Each one holds the decompressors' memory (up
   * to about three times the largest chunk).
   */
  readonly threads?: number;
}

/** One worker thread and the requests it has not answered yet (answered in order). */
class ChunkThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #failure: Error | undefined;

  public constructor(onLost: (error: Error) => void) {
    const worker = new Worker(PROGRAM, {
      eval: true,
      workerData: { fastCrcPath: packagePath("@node-rs/crc32"), zstdPath: ZSTD_PATH, lz4Path: LZ4_PATH, bz2Path: BZ2_PATH },
    });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) {
        worker.unref();
      }
      if (reply.error == undefined) {
        waiting?.resolve({ crc: reply.crc, bytes: new Uint8Array(reply.buffer) });
      } else {
        waiting?.reject(new Error(reply.error));
      }
    });
    const lost = (error: Error): void => {
      if (this.#failure == undefined) {
        this.fail(error);
        onLost(error);
      }
    };
    worker.on("error", lost);
    worker.on("exit", (code) => {
      lost(new Error(`the chunk thread exited (code ${code})`));
    });
    this.#worker = worker;
  }

  /** Requests sent and not answered. */
  public get load(): number {
    return this.#waiting.size;
  }

  public async request(id: number, buffer: ArrayBuffer, where: CompressedRecords | undefined): Promise<CrcResult> {
    if (this.#failure) {
      throw this.#failure;
    }
    const reply = new Promise<CrcResult>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
    if (this.#waiting.size === 1) {
      this.#worker.ref();
    }
    try {
      this.#worker.postMessage({ id, buffer, where }, [buffer]);
    } catch (err) {
      this.#waiting.delete(id);
      if (this.#waiting.size === 0) {
        this.#worker.unref();
      }
      throw err;
    }
    return await reply;
  }

  /** Rejects every waiting request and every later one with `error`. */
  public fail(error: Error): void {
    this.#failure ??= error;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    this.#worker.unref();
    for (const w of waiting) {
      w.reject(error);
    }
  }

  public async terminate(): Promise<void> {
    await this.#worker.terminate();
  }
}

/**
 * A ChunkWorker on Node worker threads (node:worker_threads), started at the first request; each
 * request goes to the thread with the fewest waiting. A thread keeps the process alive only while
 * a request of its own is waiting, so a finished command exits without closing it. If a thread
 * fails, its waiting requests and every later request reject (the reader then works on its own
 * thread); a chunk that does not decompress rejects that request only.
 */
export class ThreadChunkWorker implements ChunkWorker {
  public readonly compressions: ReadonlySet<string> = new Set([
    ...(ZSTD_PATH != undefined && LZ4_PATH != undefined ? ["zstd", "lz4"] : []),
    ...(BZ2_PATH != undefined ? ["bz2"] : []),
  ]);
  public readonly parallelism: number;
  #threads: ChunkThread[] = [];
  #failure: Error | undefined;
  #nextId = 0;

  public constructor(options: ThreadChunkWorkerOptions = {}) {
    const threads = options.threads ?? Math.min(DEFAULT_CHUNK_THREADS, availableParallelism());
    if (!Number.isSafeInteger(threads) || threads < 1) {
      throw new RangeError(`a ThreadChunkWorker needs at least one thread, not ${threads}`);
    }
    this.parallelism = threads;
  }

  public async crc32(bytes: Uint8Array): Promise<CrcResult> {
    return await this.#request(bytes, undefined);
  }

  public async decompress(bytes: Uint8Array, where: CompressedRecords): Promise<CrcResult> {
    if (!this.compressions.has(where.compression)) {
      throw new RangeError(`this ChunkWorker does not decompress ${JSON.stringify(where.compression)}`);
    }
    if (
      !Number.isSafeInteger(where.offset) ||
      !Number.isSafeInteger(where.length) ||
      where.offset < 0 ||
      where.length < 0 ||
      where.offset + where.length > bytes.byteLength
    ) {
      throw new RangeError(`compressed records at ${where.offset}+${where.length} are outside the ${bytes.byteLength} bytes handed over`);
    }
    return await this.#request(bytes, where);
  }

  /** Stops the threads; waiting requests reject. Later requests start new ones. */
  public async close(): Promise<void> {
    const threads = this.#threads;
    this.#threads = [];
    this.#failure = undefined;
    const closed = new Error("the chunk thread was closed");
    for (const t of threads) {
      t.fail(closed);
    }
    await Promise.all(
      threads.map(async (t) => {
        await t.terminate();
      }),
    );
  }

  async #request(bytes: Uint8Array, where: CompressedRecords | undefined): Promise<CrcResult> {
    if (!canHandOver(bytes)) {
      throw new RangeError("a ChunkWorker takes the whole of an ArrayBuffer of its own, not a view of part of one");
    }
    if (this.#failure) {
      throw this.#failure;
    }
    return await this.#leastLoaded().request(this.#nextId++, bytes.buffer as ArrayBuffer, where);
  }

  #leastLoaded(): ChunkThread {
    if (this.#threads.length < this.parallelism) {
      const free = this.#threads.find((t) => t.load === 0);
      if (free) {
        return free;
      }
      const threads = this.#threads;
      const thread = new ChunkThread((error) => {
        // One lost thread fails the whole worker: the reader falls back to its own thread.
        if (this.#threads === threads) {
          this.#failure = error;
          for (const t of threads) {
            t.fail(error);
          }
        }
      });
      threads.push(thread);
      return thread;
    }
    let best = this.#threads[0]!;
    for (const t of this.#threads) {
      if (t.load < best.load) {
        best = t;
      }
    }
    return best;
  }
}

let shared: ThreadChunkWorker | undefined;

/**
 * The process's ChunkWorker, or undefined where it would not help: on a machine with one core
 * (the threads would take turns with the reader; decompressing on the reading thread is
 * cheaper, measured here) or where Node has no native CRC-32 (before 20.15). Readers then work on
 * their own thread.
 */
export function sharedChunkWorker(): ChunkWorker | undefined {
  if (typeof (zlib as { crc32?: unknown }).crc32 !== "function" || availableParallelism() < 2) {
    return undefined;
  }
  shared ??= new ThreadChunkWorker();
  return shared;
}
