import { cpuNowNs, medianOf, nowNs } from "./harness";
import { FileByteSource } from "../src/recording/node";

const READ_BLOCK = 8 << 20;

/**
 * The disk pass of the scale benchmarks, the baseline every other pass is compared with: reads
 * every byte of the file at `path` in 8 MiB reads, in order (the page cache is usually warm
 * after the first run). Returns a value depending on what was read, so the reads are not idle.
 */
export async function diskPass(path: string): Promise<number> {
  const source = await FileByteSource.open(path);
  try {
    let sum = 0;
    for (let at = 0; at < source.size; at += READ_BLOCK) {
      const block = await source.read(at, Math.min(READ_BLOCK, source.size - at));
      sum += block[0]!;
    }
    return sum;
  } finally {
    await source.close();
  }
}

/** Wall and CPU time of one pass. */
export interface PassTime {
  readonly ns: number;
  readonly cpuNs: number;
}

/** Runs `pass` and returns its wall and CPU time. */
export async function timedPass(pass: () => Promise<unknown>): Promise<PassTime> {
  const t = nowNs();
  const c = cpuNowNs();
  await pass();
  return { ns: nowNs() - t, cpuNs: cpuNowNs() - c };
}

/** Throughput in MB/s (10^6 bytes), one decimal. */
export function mbps(bytes: number, ns: number): number {
  return Math.round((bytes / 1e6 / (ns / 1e9)) * 10) / 10;
}

/**
 * The runs of a benchmark so far, for figures that are medians over all of them (a run's own
 * figure alone moves with the machine's other load).
 */
export class RunMedians<T> {
  readonly #runs: T[] = [];

  /** Runs recorded so far. */
  public get count(): number {
    return this.#runs.length;
  }

  /** Records one run. */
  public add(run: T): void {
    this.#runs.push(run);
  }

  /** The median of `f` over the runs so far (NaN before the first). */
  public median(f: (run: T) => number): number {
    return this.#runs.length === 0 ? Number.NaN : medianOf(this.#runs.map(f));
  }

  /** The same, rounded to three decimals (for ratios). */
  public ratio(f: (run: T) => number): number {
    return Math.round(this.median(f) * 1000) / 1000;
  }
}
