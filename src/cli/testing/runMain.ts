import { vi } from "vitest";

import { main } from "../main";

/** What one in-process `lockstep` run gave: its exit code and what it wrote. */
export interface MainRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Test helper: `lockstep ARGS…` run in this process (`main`), stdout and stderr captured. */
export async function runMain(args: readonly string[]): Promise<MainRun> {
  const out: string[] = [];
  const err: string[] = [];
  const spyOut = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => out.push(String(s)) > 0);
  const spyErr = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => err.push(String(s)) > 0);
  try {
    const code = await main([...args]);
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    spyOut.mockRestore();
    spyErr.mockRestore();
  }
}
