import type { SqlJsStatic } from "@foxglove/sql.js";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { sqlJsFromWasm, type SqlJsLoader } from "./sqlJs";

const WASM_NAME = "sql-wasm.wasm";
const PACKAGE_WASM = "@foxglove/sql.js/dist/sql-wasm.wasm";

/**
 * Where `sql-wasm.wasm` may be, most specific first. Survives bundling: a bundle can ship the
 * wasm beside itself (or anywhere, named by LOCKSTEP_SQLJS_WASM), and otherwise the package is
 * resolved from this module, from the running script and from the working directory.
 */
export function sqlJsWasmCandidates(): string[] {
  const out: string[] = [];
  const fromEnv = process.env.LOCKSTEP_SQLJS_WASM;
  if (fromEnv != undefined && fromEnv !== "") {
    out.push(fromEnv);
  }
  const bases: string[] = [];
  try {
    bases.push(fileURLToPath(import.meta.url));
  } catch {
    // Not an ES module URL (a CommonJS bundle): the other bases remain.
  }
  if (process.argv[1] != undefined) {
    bases.push(process.argv[1]);
  }
  bases.push(join(process.cwd(), "package.json"));
  for (const base of bases) {
    out.push(join(dirname(base), WASM_NAME));
  }
  for (const base of bases) {
    try {
      out.push(createRequire(base).resolve(PACKAGE_WASM));
    } catch {
      // Not resolvable from there.
    }
  }
  return out;
}

let loaded: Promise<SqlJsStatic> | undefined;

/**
 * sql.js for Node: reads `sql-wasm.wasm` from the first candidate that exists (see
 * `sqlJsWasmCandidates`) and hands its bytes to the engine, so nothing depends on where the
 * JavaScript ended up. Rejects naming every place it looked.
 */
export const loadSqlJsNode: SqlJsLoader = async () => {
  loaded ??= (async () => {
    const candidates = sqlJsWasmCandidates();
    const found = candidates.find((p) => existsSync(p));
    if (found == undefined) {
      throw new Error(
        `cannot find ${WASM_NAME} (the SQLite engine for rosbag2 .db3 files); looked at ${candidates.join(", ")}; set LOCKSTEP_SQLJS_WASM to its path`,
      );
    }
    return await sqlJsFromWasm(readFileSync(found));
  })();
  try {
    return await loaded;
  } catch (err) {
    loaded = undefined;
    throw err;
  }
};
