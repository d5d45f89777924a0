// Bundles the `lockstep` command (src/cli/main.ts) into build/lockstep.mjs (+ build/chunks/) with esbuild, so the
// CLI starts without compiling TypeScript. Runs as the package's `prepare` step (npm ci / npm
// install) and before the tests (vitest global setup).
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// Chunk names carry a content hash, so every build with a change writes new ones: without this the
// folder keeps every earlier build's chunks (hundreds of MB on a working machine, all of it read
// by tools that walk the tree).
rmSync(join(root, "build", "chunks"), { recursive: true, force: true });

await build({
  entryPoints: { lockstep: join(root, "src/cli/main.ts") },
  outdir: join(root, "build"),
  outExtension: { ".js": ".mjs" },
  // What a command loads with import() (the benchmarks, say) goes to its own chunk, read only
  // when that command runs.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Dependencies are bundled too (one file to load), except those that load files next to their
  // own code (WebAssembly) and optional native add-ons.
  external: [
    "@foxglove/wasm-bz2",
    "@foxglove/wasm-lz4",
    "@foxglove/wasm-zstd",
    "@foxglove/sql.js",
    "bufferutil",
    "utf-8-validate",
    // Development tools the benchmarks use; never needed by the other commands.
    "playwright-core",
    "esbuild",
    "vite",
  ],
  sourcemap: "linked",
  // Smaller text to read and compile at start-up; identifiers keep their names (error messages
  // and filter names use class names).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  // Bundled modules that read import.meta.url keep resolving next to the sources' packages.
  banner: { js: "import { createRequire as __lockstepRequire } from 'node:module'; const require = __lockstepRequire(import.meta.url);" },
});
