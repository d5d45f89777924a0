import { parse } from "@foxglove/rosmsg";

type MessageDefinition = ReturnType<typeof parse>[number];
type FieldDefinition = MessageDefinition["definitions"][number];

/** Integer field types a stamp path may end at (integer nanoseconds). */
const INTEGER_TYPES = new Set(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]);

/**
 * Why the message path `path` (".header.stamp", as `stampReaderFor` reads it) cannot give a stamp
 * of messages of type `schemaName` whose ROS definition is `definition` (the `.msg` text with its
 * dependencies appended, as bags and MCAP write it, in `dialect`'s `.msg` syntax): a field it names is
 * not in its message type (the fields that are, named), is an array, or the path ends at a field
 * that is not a time, an integer of nanoseconds or a string of them. Undefined when it can, and
 * when the definition does not parse (reading the messages names that). Without this check a
 * misspelt path drops every message as `no-header`, a reason that points elsewhere.
 */
export function stampPathProblem(path: string, schemaName: string, definition: string, dialect: "ros1" | "ros2"): string | undefined {
  let definitions: MessageDefinition[];
  try {
    definitions = parse(definition, { ros2: dialect === "ros2" });
  } catch {
    return undefined;
  }
  const byName = new Map(definitions.map((d) => [d.name, d]));
  let type = schemaName;
  let current = definitions[0];
  const fields = path.slice(1).split(".");
  for (let i = 0; i < fields.length; i++) {
    const name = fields[i]!;
    const at = `.${fields.slice(0, i).join(".")}`;
    const where = i === 0 ? type : `${at.slice(1)} (${type})`;
    const field = current?.definitions.find((f) => f.name === name && f.isConstant !== true);
    if (current == undefined || field == undefined) {
      const names = (current?.definitions ?? []).filter((f) => f.isConstant !== true).map((f) => f.name);
      return `${where} has no field "${name}"${names.length > 0 ? ` (its fields: ${names.join(", ")})` : ""}`;
    }
    if (field.isArray === true) {
      return `${at === "." ? "" : `${at.slice(1)}.`}${name} is an array (${field.type}[]), not one stamp`;
    }
    const last = i === fields.length - 1;
    if (!last && field.isComplex !== true) {
      return `${at === "." ? "" : `${at.slice(1)}.`}${name} is a ${field.type}, which has no field "${fields[i + 1]!}"; end the path at it`;
    }
    if (last) {
      return stampLike(field, byName) ? undefined : `${at === "." ? "" : `${at.slice(1)}.`}${name} is a ${field.type}, not a time, an integer of nanoseconds or a string of them`;
    }
    type = field.type;
    current = byName.get(field.type);
  }
  return undefined;
}

/** Whether a field reads as a stamp: a time, an integer, a string, or a message of `sec` and `nsec`/`nanosec`. */
function stampLike(field: FieldDefinition, byName: ReadonlyMap<string | undefined, MessageDefinition>): boolean {
  if (field.type === "time" || field.type === "string" || INTEGER_TYPES.has(field.type)) {
    return true;
  }
  const names = new Set(byName.get(field.type)?.definitions.map((f) => f.name));
  return field.isComplex === true && names.has("sec") && (names.has("nsec") || names.has("nanosec"));
}
