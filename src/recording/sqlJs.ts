import initSqlJs, { type SqlJsStatic } from "@foxglove/sql.js";

/**
 * Provides the WebAssembly SQLite engine (@foxglove/sql.js) the rosbag2 sqlite3 reader runs on.
 * Each host supplies one: Node reads the wasm file itself (`loadSqlJsNode` in `recording/node`),
 * a browser or Worker uses `defaultSqlJs` (the wasm is fetched next to the script) or its own.
 */
export type SqlJsLoader = () => Promise<SqlJsStatic>;

let loaded: Promise<SqlJsStatic> | undefined;

/**
 * sql.js with its own way of finding `sql-wasm.wasm` (next to the script that loaded it), once
 * per realm. Use it where the wasm file is served beside the bundle.
 */
export const defaultSqlJs: SqlJsLoader = async () => {
  loaded ??= initSqlJs();
  return await loaded;
};

/** sql.js started from wasm bytes the host already has (no file lookup at all). */
export async function sqlJsFromWasm(wasmBinary: Uint8Array): Promise<SqlJsStatic> {
  return await initSqlJs({ wasmBinary: wasmBinary.buffer.slice(wasmBinary.byteOffset, wasmBinary.byteOffset + wasmBinary.byteLength) as ArrayBuffer });
}
