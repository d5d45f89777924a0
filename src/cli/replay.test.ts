// Contract tests for `lockstep replay` (DESIGN §3.3): they spawn the real command, as users and
// other tools do. Expected outputs are derived by hand from the reference algorithms (the step
// numbers of reference/*.md are cited per case), not copied from the implementation.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";

import { parseConfig } from "../pipeline";
import { replay } from "./commands/replay";
import { MAX_CONFIG_FILE_BYTES } from "./configArgument";

const ROOT = join(__dirname, "..", "..");
// LOCKSTEP_BIN runs the same contract against another entry point (e.g. an installed build).
const BIN = process.env.LOCKSTEP_BIN ?? join(ROOT, "bin", "lockstep.js");

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(config: object | string, events: (object | string)[]): Result {
  const input =
    events.map((e) => (typeof e === "string" ? e : JSON.stringify(e))).join("\n") + "\n";
  const arg = typeof config === "string" ? config : JSON.stringify(config);
  const r = spawnSync(process.execPath, [BIN, "replay", "--config", arg], {
    cwd: ROOT,
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs a replay that must succeed; returns stdout's lines (each checked to be one JSON value). */
function ok(config: object | string, events: (object | string)[]): string[] {
  const r = run(config, events);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const lines = r.stdout.split("\n");
  expect(lines.pop()).toBe("");
  for (const line of lines) {
    expect(() => JSON.parse(line) as unknown).not.toThrow();
  }
  return lines;
}

const ev = (slot: number, stamp: unknown, arrival?: string): object =>
  arrival == undefined ? { slot, stamp } : { slot, stamp, arrival };
const tuple = (after: number, ...stamps: (string | null)[]): string =>
  JSON.stringify({ tuple: stamps, after });
const drop = (after: number, slot: number, stamp: string | null, reason: string): string =>
  JSON.stringify({ drop: { slot, stamp, reason }, after });

describe("lockstep replay: fkie policies", () => {
  it("fkie/approximate-time: one-period lag, out-of-order reset, headerless drop (fkie §2.1)", () => {
    // e1: pivot = slot 1 (1001); slot 0's head 1000 < pivot waits for one more message (step 3 of
    // can_still_improve). e2: 2000 is not strictly closer to 1001 than 1000, so the set goes out.
    // e5: 500 < latest[1] = 2001 resets the policy (ROS 2 rule, step 2), dropping the held 3000.
    expect(
      ok({ slots: 2, policy: { type: "fkie/approximate-time" } }, [
        ev(0, "1000"),
        ev(1, "1001"),
        ev(0, "2000"),
        ev(1, "2001"),
        ev(0, "3000"),
        ev(1, "500"),
        ev(1, null),
      ]),
    ).toEqual([
      tuple(2, "1000", "1001"),
      tuple(4, "2000", "2001"),
      drop(5, 0, "3000", "out-of-order-reset"),
      drop(6, 1, null, "no-header"),
    ]);
  });

  it("fkie/approximate-time: maxTimespan from the config file, max-age default 1 s", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-replay-"));
    try {
      const file = join(dir, "config.json");
      writeFileSync(
        file,
        JSON.stringify({
          slots: 2,
          policy: { type: "fkie/approximate-time", maxTimespan: "50ms" },
        }),
      );
      // e2 makes slot 0 final (1.2 s is farther from the pivot 1.06 s than 1 s); the set spans
      // 60 ms > 50 ms, so the pivot is dropped (step 5.4). e3 at 2.5 s puts the age cutoff at 1.5 s:
      // slot 0's head (1 s) expires (< cutoff) and its queued 1.2 s too (<= cutoff), step 1.
      expect(
        ok(file, [
          ev(0, "1000000000"),
          ev(1, "1060000000"),
          ev(0, "1200000000"),
          ev(1, "2500000000"),
        ]),
      ).toEqual([
        drop(2, 1, "1060000000", "max-timespan"),
        drop(3, 0, "1000000000", "max-age"),
        drop(3, 0, "1200000000", "max-age"),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fkie/exact-time: match, duplicate stamp, age purge (fkie §2.2)", () => {
    // e2 completes stamp 100 (cutoff = 100 purges nothing else); e3 repeats 200 on slot 1, so the
    // new message is dropped; e4 at 1.5 s purges keys <= 0.5 s: slot 1's 200.
    expect(
      ok({ slots: 2, policy: { type: "fkie/exact-time" } }, [
        ev(0, "100"),
        ev(1, "200"),
        ev(1, "100"),
        ev(1, "200"),
        ev(0, "1500000000"),
      ]),
    ).toEqual([
      tuple(2, "100", "100"),
      drop(3, 1, "200", "duplicate-stamp"),
      drop(4, 1, "200", "max-age"),
    ]);
  });

  it("fkie/fifo: arrival order, capacity 1, headerless accepted (fkie §2.3)", () => {
    expect(
      ok({ slots: 2, policy: { type: "fkie/fifo" } }, [
        ev(0, "10"),
        ev(0, "20"),
        ev(1, "5"),
        ev(0, null),
        ev(1, "7"),
      ]),
    ).toEqual([drop(1, 0, "10", "queue-overflow"), tuple(2, "20", "5"), tuple(4, null, "7")]);
  });

  it("fkie/latch: trigger slot 0, latched values reused, unused ones superseded (fkie §2.4)", () => {
    expect(
      ok({ slots: 2, policy: { type: "fkie/latch" } }, [
        ev(1, "5"),
        ev(0, "10"),
        ev(0, "20"),
        ev(1, "6"),
        ev(1, "7"),
        ev(0, "30"),
      ]),
    ).toEqual([
      tuple(1, "10", "5"),
      tuple(2, "20", "5"),
      drop(4, 1, "6", "superseded"),
      tuple(5, "30", "7"),
    ]);
  });
});

describe("lockstep replay: ROS and Python policies", () => {
  it("ros/approximate-time: candidate, virtual search, publish when the pivot leaves; overflow (ROS §2.1)", () => {
    // e1: candidate {1000, 1001}, pivot slot 1; the virtual search cannot prove it optimal yet.
    // e2: start becomes slot 1 = the pivot, so the candidate is published (step 5a). Same at e4.
    // e6: slot 0 holds 3000, 4000, 5000 > queueSize 2: the oldest is dropped.
    expect(
      ok({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 2 } }, [
        ev(0, "1000"),
        ev(1, "1001"),
        ev(0, "2000"),
        ev(1, "2001"),
        ev(0, "3000"),
        ev(0, "4000"),
        ev(0, "5000"),
      ]),
    ).toEqual([
      tuple(2, "1000", "1001"),
      tuple(4, "2000", "2001"),
      drop(6, 0, "3000", "queue-overflow"),
    ]);
  });

  it("ros/exact-time: match, then older partial tuples are dropped at the next match (ROS §2.2)", () => {
    expect(
      ok({ slots: 2, policy: { type: "ros/exact-time", queueSize: 3 } }, [
        ev(0, "5"),
        ev(1, "7"),
        ev(1, "5"),
        ev(0, "3"),
        ev(0, "7"),
      ]),
    ).toEqual([tuple(2, "5", "5"), tuple(4, "7", "7"), drop(4, 0, "3", "not-selected")]);
  });

  it("ros/approximate-epsilon-time: inclusive epsilon; heads within epsilon of the oldest are popped (ROS §2.4)", () => {
    expect(
      ok(
        {
          slots: 2,
          policy: { type: "ros/approximate-epsilon-time", queueSize: 2, epsilon: "1ms" },
        },
        [ev(0, "1000000000"), ev(1, "1001000000"), ev(0, "2000000000"), ev(1, "2002000000")],
      ),
    ).toEqual([tuple(1, "1000000000", "1001000000"), drop(3, 0, "2000000000", "not-selected")]);
  });

  it("python/approximate-time: slop match, no-header drop, queue overflow (ROS §2.5)", () => {
    expect(
      ok({ slots: 2, policy: { type: "python/approximate-time", queueSize: 2, slop: "10ms" } }, [
        ev(0, "100000000"),
        ev(1, "105000000"),
        ev(0, "200000000"),
        ev(1, "215000000"),
        ev(1, null),
        ev(0, "300000000"),
        ev(0, "400000000"),
      ]),
    ).toEqual([
      tuple(1, "100000000", "105000000"),
      drop(4, 1, null, "no-header"),
      drop(6, 0, "200000000", "queue-overflow"),
    ]);
  });

  it("python/approximate-time with allowHeaderless times a headerless message by its arrival", () => {
    const config = {
      slots: 2,
      policy: {
        type: "python/approximate-time",
        queueSize: 2,
        slop: "10ms",
        allowHeaderless: true,
      },
    };
    // DESIGN §3.3: a headerless member prints as the arrival time it was matched with.
    expect(ok(config, [ev(0, null, "1000000000"), ev(1, "1005000000")])).toEqual([
      tuple(1, "1000000000", "1005000000"),
    ]);
    const r = run(config, [ev(0, null)]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 1: "stamp" is null .*give "arrival"/);
  });

  it("python/exact-time pairs equal stamps", () => {
    expect(
      ok({ slots: 2, policy: { type: "python/exact-time", queueSize: 2 } }, [
        ev(0, "5"),
        ev(1, "6"),
        ev(1, "5"),
      ]),
    ).toEqual([tuple(2, "5", "5")]);
  });
});

describe("lockstep replay: ROS 1 / ROS 2 library options", () => {
  it("fkie/approximate-time: ROS 2 out-of-order rule by default, ros1OutOfOrder for fkie 1.x (fkie §2.1)", () => {
    // e1: (a100, b100) goes out. e3: b90 is older than the newest stamp slot 1 ever received
    // (b100). ROS 2 (fkie 2.x/3.x) compares against that and resets, dropping the held a200.
    // ROS 1 (fkie 1.x) compares only against messages still held on slot 1 (none), so b90 is kept;
    // e4: b210 (10 ms from the pivot a200) is closer than b90 (110 ms): b90 is passed over.
    const trace = [
      ev(0, "100000000"),
      ev(1, "100000000"),
      ev(0, "200000000"),
      ev(1, "90000000"),
      ev(1, "210000000"),
    ];
    const ros2 = [
      tuple(1, "100000000", "100000000"),
      drop(3, 0, "200000000", "out-of-order-reset"),
    ];
    const policy = { type: "fkie/approximate-time", maxAge: null };
    expect(ok({ slots: 2, policy }, trace)).toEqual(ros2);
    expect(ok({ slots: 2, policy: { ...policy, ros1OutOfOrder: false } }, trace)).toEqual(ros2);
    expect(ok({ slots: 2, policy: { ...policy, ros1OutOfOrder: true } }, trace)).toEqual([
      tuple(1, "100000000", "100000000"),
      drop(4, 1, "90000000", "not-selected"),
      tuple(4, "200000000", "210000000"),
    ]);
  });

  it("ros/latest-time: first-arrival-order quirk by default, fixFirstArrivalOrder fixes it (ROS §2.3)", () => {
    // Driven by arrival (= stamp here, at epoch scale). Slot 1 arrives first (t0), slot 0 at
    // t0+100ms. The library creates rate estimators in first-arrival order but indexes them by
    // slot: estimator 0 starts at t0 (slot 1's arrival) yet is updated by slot 0.
    // e2 p1 @120ms: quirk period 120 ms (8.3 Hz), fixed 20 ms (50 Hz); slot 1 has no rate yet, so
    // slot 0 is the pivot in both and (p1, q0) goes out; p0 was never emitted (superseded).
    // e3 q1 @200ms: quirk period from estimator 1 (started at 100 ms) = 100 ms, 10 Hz > 8.3 Hz:
    // slot 1 is the pivot and (p1, q1) goes out. Fixed: 200 ms since q0, 5 Hz < 50 Hz: no output.
    const t = (ms: number): string =>
      (1_700_000_000_000_000_000n + BigInt(ms) * 1_000_000n).toString();
    const trace = [
      ev(1, t(0), t(0)),
      ev(0, t(100), t(100)),
      ev(0, t(120), t(120)),
      ev(1, t(200), t(200)),
    ];
    const common = [drop(2, 0, t(100), "superseded"), tuple(2, t(120), t(0))];
    expect(ok({ slots: 2, policy: { type: "ros/latest-time" } }, trace)).toEqual([
      ...common,
      tuple(3, t(120), t(200)),
    ]);
    expect(
      ok({ slots: 2, policy: { type: "ros/latest-time", fixFirstArrivalOrder: true } }, trace),
    ).toEqual(common);
  });

  it("rejects a non-boolean option naming its JSON path", () => {
    const r = run(
      { slots: 2, policy: { type: "ros/latest-time", fixFirstArrivalOrder: "yes" } },
      [],
    );
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/\/policy\/fixFirstArrivalOrder: "yes" is a string; expected boolean/);
  });
});

describe("lockstep replay: exact stamps at epoch scale", () => {
  it("keeps stamps 1 ns apart near 1.7e18 ns distinct and prints them back exactly", () => {
    // Same reasoning as the small-stamp fkie case: each slot-0 message 2 ns later is not strictly
    // closer to the pivot than the 1 ns earlier head, so each pair goes out one message later.
    expect(
      ok({ slots: 2, policy: { type: "fkie/approximate-time" } }, [
        ev(0, "1700000000000000000"),
        ev(1, "1700000000000000001"),
        ev(0, "1700000000000000002"),
        ev(1, { sec: 1700000000, nsec: 3 }),
        ev(0, { sec: 1700000000, nanosec: 4 }),
      ]),
    ).toEqual([
      tuple(2, "1700000000000000000", "1700000000000000001"),
      tuple(4, "1700000000000000002", "1700000000000000003"),
    ]);
  });

  it("exact-time matches only the identical epoch stamp", () => {
    expect(
      ok({ slots: 2, policy: { type: "fkie/exact-time" } }, [
        ev(0, "1700000000123456789"),
        ev(1, "1700000000123456790"),
        ev(1, "1700000000123456789"),
      ]),
    ).toEqual([tuple(2, "1700000000123456789", "1700000000123456789")]);
  });
});

describe("lockstep replay: bad input exits 2 naming the line or field", () => {
  const cfg = { slots: 2, policy: { type: "fkie/approximate-time" } };

  it("a malformed JSON line, after printing what came before it", () => {
    const r = run(cfg, [ev(0, "1000"), ev(1, "1001"), ev(0, "2000"), '{"slot": 0, "stamp": ']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe(`${tuple(2, "1000", "1001")}\n`);
    expect(r.stderr).toMatch(/^lockstep: replay: line 4: not valid JSON/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("an unknown slot", () => {
    const r = run(cfg, [ev(0, "1"), ev(2, "2")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /line 2: "slot": 2 is not a slot of this policy; use an integer from 0 to 1/,
    );
  });

  it("a non-integer stamp, a float stamp, a missing stamp, an unknown field", () => {
    let r = run(cfg, [ev(0, "1.5")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 1: "stamp": "1\.5" is not a stamp/);
    r = run(cfg, [ev(0, "1"), ev(1, 2.5)]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 2: "stamp": 2\.5 is not a whole/);
    r = run(cfg, [{ slot: 0 }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 1: "stamp" is missing/);
    r = run(cfg, [{ slot: 0, stamp: "1", topic: "/a" }]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 1: unknown field "topic"/);
  });

  it("a value nested 100,000 deep or 500 KB long, quoted short (no stack overflow, no echo)", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const [line, pattern] of [
      [`{"slot": ${deep}, "stamp": "1"}`, /^lockstep: replay: line 2: "slot": \[+\.\.\. is not a slot/m],
      [`{"slot": 0, "stamp": ${deep}}`, /^lockstep: replay: line 2: "stamp": \[+\.\.\. is not a stamp/m],
      [`{"slot": 0, "stamp": {"sec": ${deep}, "nsec": 0}}`, /^lockstep: replay: line 2: "stamp": \{"sec":\[/m],
      [`{"slot": 0, "stamp": "${"9".repeat(500_000)}x"}`, /^lockstep: replay: line 2: "stamp": "9+\.\.\. is not a stamp/m],
      [`{"slot": 0, "stamp": "1", "${"k".repeat(500_000)}": 1}`, /^lockstep: replay: line 2: unknown field "k+\.\.\.; an event has/m],
    ] as const) {
      const r = run(cfg, [ev(0, "1"), line]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(r.stderr.length).toBeLessThan(600);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }
  });

  it("an unknown policy, an unknown parameter, a malformed duration", () => {
    let r = run({ slots: 2, policy: { type: "fkie/nope" } }, [ev(0, "1")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\/policy\/type: unknown policy "fkie\/nope"/);
    r = run({ slots: 2, policy: { type: "fkie/approximate-time", maxAgee: "1s" } }, [ev(0, "1")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /\/policy\/maxAgee: "fkie\/approximate-time" has no parameter "maxAgee"; did you mean "maxAge"\?/,
    );
    r = run({ slots: 2, policy: { type: "fkie/approximate-time", maxTimespan: "50 ms" } }, [
      ev(0, "1"),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('/policy/maxTimespan: "50 ms" is not a duration; use "50ms"');
    expect(r.stdout).toBe("");
  });

  it("a missing or unreadable config", () => {
    let r = run("/nonexistent/lockstep.json", [ev(0, "1")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read config file "\/nonexistent\/lockstep.json" \(no such file or folder\)/);
    r = run('{"slots": 2,', [ev(0, "1")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
    const s = spawnSync(process.execPath, [BIN, "replay"], {
      cwd: ROOT,
      input: "",
      encoding: "utf8",
    });
    expect(s.status).toBe(2);
    expect(s.stderr).toMatch(/--config/);
  });

  it("a config file longer than 16 MiB, or endless (/dev/zero), read only that far; a pipe read whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-replay-"));
    try {
      const long = join(dir, "long.json");
      writeFileSync(long, `{"slots": 2, "policy": {"type": "fkie/exact-time"}}${" ".repeat(MAX_CONFIG_FILE_BYTES)}`);
      for (const file of [long, "/dev/zero"]) {
        const r = run(file, [ev(0, "1")]);
        expect(r.status).toBe(2);
        expect(r.stderr).toContain(`cannot read config file "${file}" (longer than the 16 MiB a config file is read up to`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A config given as a pipe (what `--config <(…)` passes) has no size beforehand.
    const s = spawnSync("bash", ["-c", `"${process.execPath}" "${BIN}" replay --config <(echo '${JSON.stringify(cfg)}')`], {
      cwd: ROOT,
      input: `${JSON.stringify(ev(0, "1"))}\n${JSON.stringify(ev(1, "1"))}\n`,
      encoding: "utf8",
    });
    expect(s.stderr).toBe("");
    expect(s.stdout.split("\n")[0]).toBe(tuple(1, "1", "1"));
  });
});

describe("replay() in process: streaming edge cases", () => {
  const config = parseConfig({ slots: 2, policy: { type: "fkie/approximate-time" } });
  const trace = ["1000", "1001", "2000", "2001", "3000"].map((s, i) =>
    JSON.stringify(ev(i % 2, s)),
  );
  const expected = `${tuple(2, "1000", "1001")}\n${tuple(4, "2000", "2001")}\n`;

  /** A writable that accepts one small chunk at a time, asynchronously (forces backpressure). */
  function slowSink(): { stream: Writable; text: () => string } {
    const chunks: string[] = [];
    const stream = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString("utf8"));
        setTimeout(done, 1);
      },
    });
    return { stream, text: () => chunks.join("") };
  }

  it("reads lines split across arbitrary chunks (byte by byte), CRLF and no final newline", async () => {
    const bytes = Buffer.from(trace.join("\r\n"), "utf8");
    const chunks = Array.from(bytes, (b) => Buffer.from([b]));
    const out = slowSink();
    await replay(config, Readable.from(chunks), out.stream);
    expect(out.text()).toBe(expected);
  });

  it("keeps every line, in order, when the output applies backpressure", async () => {
    const many: string[] = [];
    for (let i = 0; i < 3000; i++) {
      many.push(JSON.stringify(ev(i % 2, String(1000 * ((i >> 1) + 1) + (i % 2)))));
    }
    const out = slowSink();
    await replay(config, Readable.from([many.join("\n") + "\n"]), out.stream);
    const lines = out.text().trimEnd().split("\n");
    // Pair j is (slot 0 at 1000(j+1), slot 1 one ns later); each goes out when the next slot-0
    // message arrives (the one-period lag), so all but the last of the 1500 pairs are emitted.
    expect(lines.length).toBe(1499);
    expect(lines[0]).toBe(tuple(2, "1000", "1001"));
    expect(lines[1498]).toBe(tuple(2998, "1499000", "1499001"));
  });

  it("refuses a line longer than 1 MiB instead of buffering it", async () => {
    const huge = `{"slot": 0, "stamp": "1", "x": "${"a".repeat(2 << 20)}"}`;
    const out = slowSink();
    await expect(
      replay(config, Readable.from([`${trace[0]!}\n`, huge]), out.stream),
    ).rejects.toThrow(/line 2 is longer than 1 MiB/);
  });
});
