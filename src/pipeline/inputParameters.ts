import type { ParameterDescriptor, ParameterValues } from "../filters/policies/PolicyDescriptor";
import { DEFAULT_STAMP_SOURCE, STAMP_PATH_HELP, STAMP_SOURCES } from "../messages/stampSources";

/**
 * The keys of one `inputs[]` entry, described like policy parameters: the schema, the
 * `InputConfig` type and the editor fields follow from this list. The stamp sources come from
 * `STAMP_SOURCES` (messages layer), so a new source needs no edit here.
 */
export const INPUT_PARAMETERS = [
  {
    name: "topic",
    kind: "string",
    label: "Topic",
    help: 'Topic name, e.g. "/imu/data"',
    libraryName: "topic",
    required: true,
  },
  {
    name: "stamp",
    // A string, not a choice: besides the named sources it may be a message path (checked by
    // `stampSourceProblem` when the pipeline is built).
    kind: "string",
    label: "Stamp",
    help: `Where the input's stamp comes from: ${STAMP_SOURCES.map((s) => `${s.name} = ${s.help}`).join("; ")}; ${STAMP_PATH_HELP}`,
    libraryName: "(header.stamp)",
    default: DEFAULT_STAMP_SOURCE,
  },
] as const satisfies readonly ParameterDescriptor[];

/** One input of the pipeline; its index in `inputs` is its slot. */
export type InputConfig = ParameterValues<typeof INPUT_PARAMETERS>;
