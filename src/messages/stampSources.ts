/**
 * Where an input's stamp comes from. Each source is described once here; the config's
 * `inputs[].stamp` choices, its schema and the editor's menu are derived from `STAMP_SOURCES`.
 * A new stamp source is one entry here plus the code that reads it from a message, beside
 * `readStamp` in this layer.
 */
export interface StampSourceDescriptor {
  /** The value of `inputs[].stamp` ("header"). */
  readonly name: string;
  /** Short label for editors. */
  readonly label: string;
  /** One sentence for help texts, the schema and the docs. */
  readonly help: string;
}

/** Every stamp source, the default first. */
export const STAMP_SOURCES = [
  {
    name: "header",
    label: "Header stamp",
    help: "the message's header.stamp (a message without one is dropped as no-header unless the policy allows headerless messages)",
  },
] as const satisfies readonly StampSourceDescriptor[];

/** A stamp source name. */
export type StampSourceName = (typeof STAMP_SOURCES)[number]["name"];

/** The stamp source of an input that names none. */
export const DEFAULT_STAMP_SOURCE: StampSourceName = "header";
