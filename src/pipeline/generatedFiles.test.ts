import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { generatedFiles } from "./generatedFiles";

const root = join(import.meta.dirname, "..", "..");

describe("files derived from the descriptors", () => {
  for (const [path, content] of Object.entries(generatedFiles())) {
    it(`${path} is what the descriptors give (run \`npm run generate\` after editing one)`, () => {
      expect(readFileSync(join(root, path), "utf8")).toBe(content);
    });
  }
});
