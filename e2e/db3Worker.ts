/**
 * A dedicated worker for e2e/db3InWorker.test.ts, bundled for the browser: it reads a rosbag2
 * `.db3` handed to it as a Blob through Lockstep's recording layer, as a Web Worker using the
 * library would, and posts what it read and the largest read it made of the Blob.
 */

import { BlobByteSource, openRecording, sqlJsFromWasm, type ByteSource } from "../src/recording";

/** What the test posts. */
export interface Db3WorkerInput {
  readonly db3: ArrayBuffer;
  readonly wasm: ArrayBuffer;
}

/** What the worker posts back. */
export interface Db3WorkerResult {
  readonly messages: number;
  /** Topic and receive time (ns, as text) of every 97th message. */
  readonly sample: readonly string[];
  readonly largestRead: number;
  readonly readsSync: boolean;
  readonly error?: string;
}

/** The Blob's reads, passed through and measured. */
function measured(blob: BlobByteSource, largest: { bytes: number }): ByteSource {
  const readSync = blob.readSync;
  return {
    size: blob.size,
    read: async (offset, length) => {
      largest.bytes = Math.max(largest.bytes, length);
      return await blob.read(offset, length);
    },
    readSync:
      readSync == undefined
        ? undefined
        : (offset, length) => {
            largest.bytes = Math.max(largest.bytes, length);
            return readSync(offset, length);
          },
  };
}

self.onmessage = async (event: MessageEvent<Db3WorkerInput>): Promise<void> => {
  const largest = { bytes: 0 };
  const blob = new BlobByteSource(new Blob([event.data.db3]));
  try {
    const recording = await openRecording(measured(blob, largest), { sqlJs: async () => await sqlJsFromWasm(new Uint8Array(event.data.wasm)) });
    let messages = 0;
    const sample: string[] = [];
    for await (const m of recording.messages({ decode: false })) {
      if (messages % 97 === 0) {
        sample.push(`${m.topic} ${BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec)}`);
      }
      messages++;
    }
    const result: Db3WorkerResult = { messages, sample, largestRead: largest.bytes, readsSync: blob.readSync != undefined };
    self.postMessage(result);
  } catch (err) {
    const result: Db3WorkerResult = { messages: -1, sample: [], largestRead: largest.bytes, readsSync: blob.readSync != undefined, error: String(err) };
    self.postMessage(result);
  }
};
