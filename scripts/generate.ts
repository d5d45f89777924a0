// Writes the files derived from the descriptors (config/pipeline.schema.json, docs/policies.md).
// Run with `npm run generate` after changing a policy, buffer or input descriptor; a test fails
// while the files on disk differ from what this writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { generatedFiles } from "../src/pipeline/generatedFiles";

const root = join(import.meta.dirname, "..");
for (const [path, content] of Object.entries(generatedFiles())) {
  writeFileSync(join(root, path), content);
  process.stdout.write(`wrote ${path}\n`);
}
