import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

import { startServe } from "./commands/serve";
import { connectClient } from "./serve/testing/serveClients";
import { runMain, type MainRun } from "./testing/runMain";
import { stringMessage, writeDb3 } from "../recording/testing/rosbag2Fixtures";
import { suiteTempDir } from "../testing/tempDir";

/** `lockstep ARGS…`: its exit code, stdout and stderr. */
async function run(...args: string[]): Promise<MainRun> {
  return await runMain(args);
}

const LIMIT_TEXT = "than the limit of 1048576";
const CONFIG = JSON.stringify({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "ros/approximate-time", queueSize: 10 } });

describe("--max-chunk-size in every command that reads a recording", () => {
  const tmp = suiteTempDir("lockstep-limit-");
  let file: string;
  beforeAll(async () => {
    // /a and /b at 10 Hz; one /b message is 2 MiB, over a limit of 1 MiB but not the default.
    const rows = Array.from({ length: 40 }, (_, k) => ({
      topicId: (k % 2) + 1,
      timestamp: 1_700_000_000_000_000_000n + BigInt(k) * 50_000_000n,
      data: stringMessage(k === 21 ? "x".repeat(2 * 1024 * 1024) : `m${k}`),
    }));
    file = join(tmp.path, "limit.db3");
    await writeFile(file, await writeDb3([{ name: "/a", type: "std_msgs/msg/String" }, { name: "/b", type: "std_msgs/msg/String" }], rows));
  });

  it("info: reads within the default, names the row over a lower limit (exit 1), refuses a bad value (exit 2)", async () => {
    const whole = await run("info", file);
    expect(whole.code).toBe(0);
    const limited = await run("info", file, "--max-chunk-size", "1");
    expect(limited.code).toBe(1);
    expect(limited.err).toContain(LIMIT_TEXT);
    const bad = await run("info", file, "--max-chunk-size", "0");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--max-chunk-size: expected a positive number of MiB, got "0"');
  });

  it("analyze and doctor: the same limit reaches the reader", async () => {
    for (const command of ["analyze", "doctor"]) {
      expect((await run(command, file, "--config", CONFIG)).code, command).toBe(0);
      const limited = await run(command, file, "--config", CONFIG, "--max-chunk-size", "1");
      expect(limited.code, command).toBe(1);
      expect(limited.err, command).toContain(LIMIT_TEXT);
    }
  });

  it("serve: plays what is readable, then ends naming the row over the limit", async () => {
    const handle = await startServe({ file, port: 0, speed: 1000, log: () => undefined, maxChunkBytes: 1024 * 1024 });
    // Playback starts when a client subscribes.
    const conn = connectClient(handle.url);
    try {
      for (const channel of await conn.channels) {
        conn.client.subscribe(channel.id);
      }
      await expect(handle.finished).rejects.toThrow(LIMIT_TEXT);
    } finally {
      conn.client.close();
      await handle.close();
    }
  });
});
