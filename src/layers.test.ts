import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * DESIGN §1's arrows: which layers each layer may import. `time` is the bottom (exact stamps,
 * durations, the drop vocabulary, sorted search, and the bounded preview of a value and the words
 * for a file system's refusal that error messages quote) and may be used by everyone; `geometry`
 * (quaternions, rigid transforms) sits beside it, under `filters`, `messages` and `fusion`;
 * `panel` and `cli` are shells over `pipeline` and `recording`.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  time: [],
  geometry: [],
  filters: ["time", "geometry"],
  messages: ["time", "geometry"],
  fusion: ["time", "geometry", "messages"],
  pipeline: ["time", "geometry", "filters", "fusion", "messages"],
  recording: ["time", "messages"],
  panel: ["time", "pipeline", "recording"],
  cli: ["time", "pipeline", "recording"],
  ".": ["panel"],
};

/** Layers that run in Node, the browser and a Web Worker alike (DESIGN §1). */
const PORTABLE = new Set(["time", "geometry", "filters", "messages", "fusion", "pipeline"]);
const NOT_PORTABLE =
  /^(node:|fs$|path$|os$|child_process$|worker_threads$|react($|\/)|react-dom|@foxglove\/extension$)/;

/**
 * Imports that break the arrows today, in files whose owners are moving them; each entry must
 * still be a violation (remove it when fixed), and no new violation may appear.
 */
const KNOWN: readonly string[] = [];

const SRC = resolve(import.meta.dirname);
const LAYERS = new Set(
  readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name),
);

function productionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "testing") {
        out.push(...productionFiles(path));
      }
    } else if (
      /\.tsx?$/.test(entry.name) &&
      !/\.test\.tsx?$/.test(entry.name) &&
      !/^(testing|testHarness)\.ts$/.test(entry.name) &&
      !entry.name.endsWith(".testing.ts")
    ) {
      out.push(path);
    }
  }
  return out;
}

/** The layer (first folder under src/) of a file or an import target ("../time" is `time`). */
function layerOf(path: string): string {
  const first = relative(SRC, path).split(sep)[0]!;
  return LAYERS.has(first) ? first : ".";
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  const re =
    /(?:^|[\s;])(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

function violations(): { arrows: string[]; portability: string[] } {
  const arrows = new Set<string>();
  const portability: string[] = [];
  for (const file of productionFiles(SRC)) {
    const from = layerOf(file);
    const name = `src/${relative(SRC, file).split(sep).join("/")}`;
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(SRC)) {
          continue; // config/*.json and the like
        }
        const to = layerOf(target);
        if (to !== from && !(ALLOWED[from] ?? []).includes(to)) {
          arrows.add(`${name} -> ${to}`);
        }
      } else if (PORTABLE.has(from) && NOT_PORTABLE.test(spec)) {
        portability.push(`${name} imports ${spec}`);
      }
    }
  }
  return { arrows: [...arrows].sort(), portability };
}

describe("layers (DESIGN §1)", () => {
  const found = violations();

  it("no production file imports against the arrows, except the known ones being moved", () => {
    expect(found.arrows.filter((v) => !KNOWN.includes(v))).toEqual([]);
  });

  it("every known exception still exists (remove it from KNOWN once fixed)", () => {
    expect(KNOWN.filter((k) => !found.arrows.includes(k))).toEqual([]);
  });

  it("time, filters, messages, fusion and pipeline import no Node-only module, React or the extension API", () => {
    expect(found.portability).toEqual([]);
  });

  it("the check sees imports (a deliberate violation is caught)", () => {
    expect(
      specifiers(
        'import { a } from "../filters/x";\nexport * from "./y";\nconst m = import("../z");',
      ),
    ).toEqual(["../filters/x", "./y", "../z"]);
  });
});
