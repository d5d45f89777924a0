// The recording layer in a real browser's Web Worker (headless chromium): a rosbag2 .db3 handed
// over as a Blob is read page by page through FileReaderSync, never whole.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import type { Db3WorkerInput, Db3WorkerResult } from "./db3Worker";
import { bundleForBrowser, launchChromium } from "./setup";
import { ArrayByteSource, openRecording } from "../src/recording";
import { loadSqlJsNode, sqlJsWasmCandidates } from "../src/recording/node";
import { stringMessage, writeDb3 } from "../src/recording/testing/rosbag2Fixtures";

/** A .db3 of about 8 MB: two topics, rows out of receive-time order, some on overflow pages. */
async function db3File(): Promise<Uint8Array> {
  const topics = [
    { name: "/small", type: "std_msgs/msg/String" },
    { name: "/large", type: "std_msgs/msg/String" },
  ];
  return await writeDb3(
    topics,
    Array.from({ length: 4000 }, (_, k) => ({
      topicId: k % 5 === 0 ? 2 : 1,
      timestamp: 1_700_000_000_000_000_000n + BigInt(((k * 7919) % 4001) * 1_000_000),
      data: stringMessage(k % 5 === 0 ? `${k}`.padEnd(9000, "x") : `${k}`.padEnd(200, "y")),
    })),
  );
}

describe("a rosbag2 .db3 in a Web Worker (chromium)", () => {
  it("is read page by page from its Blob (FileReaderSync), with the messages Node reads from the file", async () => {
    const expected: string[] = [];
    let n = 0;
    const db3 = Buffer.from(await db3File());
    const recording = await openRecording(new ArrayByteSource(db3), { sqlJs: loadSqlJsNode });
    for await (const m of recording.messages({ decode: false })) {
      if (n % 97 === 0) {
        expected.push(`${m.topic} ${BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec)}`);
      }
      n++;
    }
    const wasm = readFileSync(sqlJsWasmCandidates().find((p) => existsSync(p))!);
    const source = await bundleForBrowser("e2e/db3Worker.ts");
    const browser = await launchChromium();
    let result: Db3WorkerResult;
    try {
      const page = await browser.newPage();
      result = await page.evaluate(
        async ({ workerJs, db3Base64, wasmBase64 }) => {
          const bytes = (base64: string): ArrayBuffer => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
          const worker = new Worker(URL.createObjectURL(new Blob([workerJs], { type: "text/javascript" })));
          return await new Promise<Db3WorkerResult>((resolve, reject) => {
            worker.onmessage = (e: MessageEvent<Db3WorkerResult>) => {
              resolve(e.data);
            };
            worker.onerror = (e) => {
              reject(new Error(e.message));
            };
            const input: Db3WorkerInput = { db3: bytes(db3Base64), wasm: bytes(wasmBase64) };
            worker.postMessage(input);
          });
        },
        // Base64 text: page.evaluate carries JSON values.
        { workerJs: source, db3Base64: db3.toString("base64"), wasmBase64: wasm.toString("base64") },
      );
    } finally {
      await browser.close();
    }
    expect(result.error).toBeUndefined();
    expect(result.readsSync).toBe(true);
    expect(result.messages).toBe(n);
    expect(result.sample).toEqual(expected);
    expect(n).toBe(4000);
    // Pages and read-ahead, never the whole file at once.
    expect(result.largestRead).toBeLessThanOrEqual(256 * 1024);
    expect(db3.byteLength).toBeGreaterThan(4 * 1024 * 1024);
  }, 300_000);
});
