import { readFileSync } from "node:fs";
import { arch, cpus, platform } from "node:os";

/**
 * What a benchmark ran on: absolute figures move by a factor of two from one machine to the next
 * (the same code ran fkie's policy alone in 14 ns on one 2-core VM and 27.5 ns on another), so a
 * figure is only quoted with its machine (DESIGN §5: "the latest figures with the date and
 * machine"). Ratios from one interleaved run (`--peers`) move far less.
 */
export interface MachineInfo {
  /**
   * The CPU's model name as the OS reports it, with its family and model numbers where Linux
   * gives them: a VM's name may be generic ("AMD EPYC") for CPUs of different generations.
   */
  readonly cpu: string;
  /** Logical cores the OS offers this process. */
  readonly cores: number;
  /**
   * The first core's clock in MHz as the OS reports it (Node's, else Linux's /proc/cpuinfo,
   * which a VM without frequency scaling still fills; 0 when unknown).
   */
  readonly mhz: number;
  /** `process.version`. */
  readonly node: string;
  /** `process.versions.v8`. */
  readonly v8: string;
  /** OS and architecture, e.g. "linux x64". */
  readonly platform: string;
}

/** The machine this process runs on; never throws (unknown parts are "unknown" or 0). */
export function machineInfo(): MachineInfo {
  const list = cpus();
  const first = list[0];
  const linux = firstCpuOfLinux();
  const family = linux.get("cpu family");
  const model = linux.get("model");
  const reported = first?.model.trim().replace(/\s+/g, " ") ?? "";
  const name = reported === "" ? "unknown" : reported;
  const speed = first != undefined && first.speed > 0 ? first.speed : Number(linux.get("cpu MHz"));
  return {
    cpu:
      family != undefined && model != undefined
        ? `${name} (family ${family}, model ${model})`
        : name,
    cores: list.length,
    mhz: Number.isFinite(speed) && speed > 0 ? Math.round(speed) : 0,
    node: process.version,
    v8: process.versions.v8,
    platform: `${platform()} ${arch()}`,
  };
}

/** One line for a benchmark table: "AMD EPYC, 2 cores at 2596 MHz, Node v20.20.2 (V8 …), linux x64". */
export function machineText(m: MachineInfo): string {
  const clock = m.mhz > 0 ? ` at ${m.mhz} MHz` : "";
  return `${m.cpu}, ${m.cores} ${m.cores === 1 ? "core" : "cores"}${clock}, Node ${m.node} (V8 ${m.v8}), ${m.platform}`;
}

/** The first processor's "key : value" lines of /proc/cpuinfo; empty elsewhere or when unreadable. */
function firstCpuOfLinux(): Map<string, string> {
  const fields = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return fields;
  }
  for (const line of text.split("\n")) {
    if (line.trim() === "") {
      // The first processor's block ends at the first blank line.
      break;
    }
    const colon = line.indexOf(":");
    if (colon > 0) {
      fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
  }
  return fields;
}
