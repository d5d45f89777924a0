import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import * as zlib from "node:zlib";

import { canHandOver, type CrcResult, type CrcWorker } from "./CrcWorker";

/**
 * The thread's whole program: a CRC-32 over the memory it is handed, which goes back with the
 * result. It uses @node-rs/crc32 (SIMD: three to four times Node's zlib.crc32 here) when its path
 * is given and it agrees with zlib on a probe, else Node's native zlib.crc32. Plain CommonJS text,
 * so that it runs the same from the sources and the bundle.
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
parentPort.on("message", ({ id, buffer }) => {
  parentPort.postMessage({ id, crc: crc32(new Uint8Array(buffer)), buffer }, [buffer]);
});
`;

/** Where @node-rs/crc32 is installed, or undefined (the thread then uses zlib.crc32). */
function fastCrcPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("@node-rs/crc32");
  } catch {
    return undefined;
  }
}

interface Reply {
  readonly id: number;
  readonly crc: number;
  readonly buffer: ArrayBuffer;
}

interface Waiting {
  readonly resolve: (result: CrcResult) => void;
  readonly reject: (error: Error) => void;
}

/**
 * A CrcWorker on one Node worker thread (node:worker_threads), started at the first request.
 * The thread keeps the process alive only while a request is waiting, so a finished command exits
 * without closing it. If the thread fails, every waiting request and every later one rejects (the
 * reader then checks on its own thread). Requests are answered in order.
 */
export class ThreadCrcWorker implements CrcWorker {
  #worker: Worker | undefined;
  #failure: Error | undefined;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = 0;

  public async crc32(bytes: Uint8Array): Promise<CrcResult> {
    if (!canHandOver(bytes)) {
      throw new RangeError("a CrcWorker takes the whole of an ArrayBuffer of its own, not a view of part of one");
    }
    const worker = this.#start();
    const id = this.#nextId++;
    const reply = new Promise<CrcResult>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
    if (this.#waiting.size === 1) {
      worker.ref();
    }
    const buffer = bytes.buffer as ArrayBuffer;
    try {
      worker.postMessage({ id, buffer }, [buffer]);
    } catch (err) {
      this.#waiting.delete(id);
      if (this.#waiting.size === 0) {
        worker.unref();
      }
      throw err;
    }
    return await reply;
  }

  /** Stops the thread; waiting requests reject. Later requests start a new one. */
  public async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#fail(new Error("the CRC thread was closed"));
    this.#failure = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#failure) {
      throw this.#failure;
    }
    if (this.#worker) {
      return this.#worker;
    }
    const worker = new Worker(PROGRAM, { eval: true, workerData: { fastCrcPath: fastCrcPath() } });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const waiting = this.#waiting.get(reply.id);
      this.#waiting.delete(reply.id);
      if (this.#waiting.size === 0) {
        worker.unref();
      }
      waiting?.resolve({ crc: reply.crc, bytes: new Uint8Array(reply.buffer) });
    });
    const lost = (error: Error): void => {
      if (this.#worker === worker) {
        this.#worker = undefined;
        this.#failure = error;
        this.#fail(error);
      }
    };
    worker.on("error", lost);
    worker.on("exit", (code) => {
      lost(new Error(`the CRC thread exited (code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const w of waiting) {
      w.reject(error);
    }
  }
}

let shared: ThreadCrcWorker | undefined;

/**
 * The process's CrcWorker, or undefined where Node has no native CRC-32 (before 20.15; readers
 * then check on their own thread).
 */
export function sharedCrcWorker(): CrcWorker | undefined {
  if (typeof (zlib as { crc32?: unknown }).crc32 !== "function") {
    return undefined;
  }
  shared ??= new ThreadCrcWorker();
  return shared;
}
