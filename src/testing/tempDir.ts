// Test support (no production file imports it).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

/**
 * A fresh temporary folder for the enclosing `describe` (or file): made before its first test,
 * removed with its contents after the last. Read `path` inside tests and hooks only.
 */
export function suiteTempDir(prefix: string): { readonly path: string } {
  const dir = { path: "" };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}
