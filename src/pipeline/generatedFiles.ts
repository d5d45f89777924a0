import { pipelineSchema } from "./configSchema";
import { INPUT_PARAMETERS } from "./inputParameters";
import { BUFFER_PARAMETERS } from "../filters/bufferParameters";
import { defaultTextOf, type ParameterDescriptor } from "../filters/policies/PolicyDescriptor";
import { POLICY_DESCRIPTORS } from "../filters/policies/descriptors";

/**
 * The repository files derived from the descriptors, by path relative to the repository root:
 * the JSON schema for editors and the parameter table of the docs. `scripts/generate.ts` writes
 * them; a test checks that the files on disk equal these.
 */
export function generatedFiles(): Record<string, string> {
  return {
    "config/pipeline.schema.json": `${JSON.stringify(pipelineSchema(), undefined, 2)}\n`,
    "docs/policies.md": policiesMarkdown(),
  };
}

function policiesMarkdown(): string {
  const lines = [
    "# Policies and parameters",
    "",
    "Generated from the descriptors (src/filters/policies/*/descriptors.ts, src/filters/bufferParameters.ts,",
    "src/pipeline/inputParameters.ts) by `npm run generate`; do not edit by hand. Durations are written as",
    'in DESIGN §3.1 ("33ms", integer nanoseconds); `null` means unlimited where allowed; a parameter left',
    "out takes the library's default.",
    "",
  ];
  for (const d of POLICY_DESCRIPTORS) {
    lines.push(
      `## \`${d.type}\``,
      "",
      `${d.description} Follows ${d.reference} (\`${d.libraryName}\`).`,
      "",
    );
    lines.push(...table(d.parameters));
  }
  lines.push(
    "## `buffer`",
    "",
    "The Buffer between the inputs and the combiner.",
    "",
    ...table(BUFFER_PARAMETERS),
  );
  lines.push(
    "## `inputs[]`",
    "",
    "One entry per combiner slot, in slot order.",
    "",
    ...table(INPUT_PARAMETERS),
  );
  return lines.join("\n");
}

function table(parameters: readonly ParameterDescriptor[]): string[] {
  if (parameters.length === 0) {
    return ["No parameters.", ""];
  }
  const rows = [
    "| parameter | kind | unit | default | range | library name | meaning |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const p of parameters) {
    rows.push(...rowsOf(p, ""));
  }
  rows.push("");
  return rows;
}

function rowsOf(p: ParameterDescriptor, prefix: string): string[] {
  const def = p.required === true ? "required" : defaultTextOf(p);
  const cells = [
    `\`${prefix}${p.name}\``,
    p.kind === "choice" ? (p.choices ?? []).map((c) => `\`${c}\``).join(", ") : p.kind,
    p.unit ?? "",
    def === "" ? "" : `\`${def}\``,
    rangeOf(p),
    `\`${p.libraryName}\``,
    p.help.replace(/\|/g, "\\|"),
  ];
  const rows = [`| ${cells.join(" | ")} |`];
  for (const f of p.fields ?? []) {
    rows.push(...rowsOf(f, `${prefix}${p.name}.`));
  }
  return rows;
}

function rangeOf(p: ParameterDescriptor): string {
  const lo =
    p.exclusiveMinimum != undefined
      ? `> ${p.exclusiveMinimum}`
      : p.minimum != undefined
        ? `>= ${p.minimum}`
        : "";
  const hi = p.maximum != undefined ? `<= ${p.maximum}` : "";
  return [lo, hi].filter((s) => s !== "").join(", ");
}
