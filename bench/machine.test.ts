import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { describe, expect, it } from "vitest";

import { machineInfo, machineText } from "./machine";

describe("machineInfo", () => {
  it("reports this process's machine: its core count, its first core's model and Node's version", () => {
    const m = machineInfo();
    expect(m.cores).toBe(cpus().length);
    expect(m.node).toBe(process.version);
    expect(m.v8).toBe(process.versions.v8);
    expect(m.cpu.length).toBeGreaterThan(0);
    expect(m.cpu).not.toMatch(/\s{2}|^\s|\s$/);
  });

  it("says what it knows in one line, and leaves out a clock the OS does not report", () => {
    const m = {
      cpu: "AMD EPYC",
      cores: 2,
      mhz: 2596,
      node: "v20.20.2",
      v8: "11.3",
      platform: "linux x64",
    };
    expect(machineText(m)).toBe(
      "AMD EPYC, 2 cores at 2596 MHz, Node v20.20.2 (V8 11.3), linux x64",
    );
    expect(machineText({ ...m, cores: 1, mhz: 0 })).toBe(
      "AMD EPYC, 1 core, Node v20.20.2 (V8 11.3), linux x64",
    );
  });
});

describe("machineInfo on Linux", () => {
  const cpuinfo = (() => {
    try {
      return readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return undefined;
    }
  })();
  const family = cpuinfo?.match(/^cpu family\s*:\s*(\S+)/m)?.[1];
  const mhz = cpuinfo?.match(/^cpu MHz\s*:\s*(\S+)/m)?.[1];

  it.skipIf(family == undefined)(
    "names the CPU's family and model, which tell apart CPUs a VM names alike",
    () => {
      expect(machineInfo().cpu).toContain(`(family ${family!}, model `);
    },
  );

  it.skipIf(mhz == undefined || cpus()[0]!.speed > 0)(
    "takes the clock from /proc/cpuinfo when Node reports none",
    () => {
      expect(machineInfo().mhz).toBe(Math.round(Number(mhz)));
    },
  );
});
