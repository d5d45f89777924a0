// Compiles assembly/envelopeCholesky.ts and assembly/envelopeSolve.ts (AssemblyScript) into one
// WebAssembly module and writes it as src/fusion/math/envelopeCholeskyWasm.bytes.ts. Run with
// `npm run build:wasm` after changing the AssemblyScript sources; a test fails while the file on
// disk differs from what this writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { ENVELOPE_CHOLESKY_BYTES_FILE, envelopeCholeskyModuleFile } from "./wasmModule";

const root = join(import.meta.dirname, "..");
writeFileSync(join(root, ENVELOPE_CHOLESKY_BYTES_FILE), await envelopeCholeskyModuleFile());
process.stdout.write(`wrote ${ENVELOPE_CHOLESKY_BYTES_FILE}\n`);
