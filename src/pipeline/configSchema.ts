import { RAW_PLACEMENTS } from "./config";
import { INPUT_PARAMETERS } from "./inputParameters";
import { BUFFER_PARAMETERS } from "../filters/bufferParameters";
import { defaultTextOf, type ParameterDescriptor } from "../filters/policies/PolicyDescriptor";
import { POLICY_DESCRIPTORS } from "../filters/policies/descriptors";

type Json = Record<string, unknown>;

const DURATION_PATTERN = "^([0-9]+(\\.[0-9]+)?(ns|us|ms|s)|[0-9]+)$";
const SIGNED_DURATION_PATTERN = "^-?([0-9]+(\\.[0-9]+)?(ns|us|ms|s)|[0-9]+)$";

/**
 * The JSON schema (draft-07) of a pipeline config (DESIGN §3.2), derived from the policy, buffer
 * and input descriptors. `parseConfig` validates against it; config/pipeline.schema.json is this
 * object written out (`npm run generate`; a test keeps the file in sync) for editors and other
 * tools. Returns a fresh object on every call.
 */
export function pipelineSchema(): Json {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "Lockstep pipeline config",
    description:
      'One pipeline: inputs (slot order), combiner policy, buffer, static transforms, fusion, publishing and the panel\'s view choices (DESIGN.md §3.2). Durations are strings with a unit ("250ns", "40us", "33ms", "1.5s") or integer nanoseconds; null means unlimited where allowed. Policy parameters left out take the library\'s own default.',
    type: "object",
    additionalProperties: false,
    required: ["policy"],
    anyOf: [{ required: ["inputs"] }, { required: ["slots"] }],
    properties: {
      $schema: { type: "string", description: "Editor hint; ignored." },
      description: { type: "string", description: "Free text describing the preset; ignored." },
      inputs: {
        description: "The input topics; the index of an input is its combiner slot.",
        type: "array",
        minItems: 1,
        maxItems: 1024,
        items: objectOf(INPUT_PARAMETERS),
      },
      slots: {
        description:
          "Number of combiner inputs when there are no topics (lockstep replay). Must equal the number of inputs when both are given.",
        type: "integer",
        minimum: 1,
        maximum: 1024,
      },
      policy: {
        description:
          "The combiner policy; `type` selects the algorithm and which parameters exist.",
        type: "object",
        required: ["type"],
        discriminator: { propertyName: "type" },
        oneOf: POLICY_DESCRIPTORS.map((d) =>
          objectOf(d.parameters, { type: { const: d.type } }, d.description),
        ),
      },
      buffer: {
        ...objectOf(BUFFER_PARAMETERS),
        description:
          "The Buffer between the inputs and the combiner (fkie Buffer): passthru, queue or discard.",
      },
      transforms: {
        description:
          "Static transforms parent -> child. Rotation as rpy or quaternion (not both); neither = identity.",
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["parent", "child", "translation"],
          not: { required: ["rpy", "quaternion"] },
          properties: {
            parent: { type: "string", minLength: 1 },
            child: { type: "string", minLength: 1 },
            translation: { $ref: "#/definitions/vector3", description: "[x, y, z] in metres." },
            rpy: { $ref: "#/definitions/vector3", description: "[roll, pitch, yaw] in radians." },
            quaternion: {
              description: "[x, y, z, w]; must not be zero.",
              type: "array",
              minItems: 4,
              maxItems: 4,
              items: { type: "number" },
            },
          },
        },
      },
      fusion: {
        description:
          "Sensor models, motion model and optimizer, as fuse configures them; validated by the fusion layer.",
        type: "object",
      },
      publish: {
        type: "object",
        additionalProperties: false,
        properties: {
          enabled: { type: "boolean", description: "Default false." },
          namespace: {
            type: "string",
            pattern: "^/([A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*)?$",
            description: 'Default "/lockstep".',
          },
        },
      },
      view: {
        description:
          "The panel's view choices, saved with its layout: they change what it shows, never what is computed, and everything else ignores them.",
        type: "object",
        additionalProperties: false,
        properties: {
          tab: { type: "string", minLength: 1, description: "The open tab's id." },
          compare: {
            description: "The policy the Compare tab runs beside the configured one (library defaults).",
            enum: POLICY_DESCRIPTORS.map((d) => d.type),
          },
          rawPlacement: {
            description:
              "Where the trajectory tab draws raw odometry: as recorded (the default) or moved onto the start of the track it is compared with.",
            enum: [...RAW_PLACEMENTS],
          },
        },
      },
    },
    definitions: {
      duration: {
        description:
          'A duration: "250ns", "40us", "33ms", "1.5s", or integer nanoseconds (number or decimal string).',
        type: ["string", "integer"],
        pattern: DURATION_PATTERN,
        minimum: 0,
      },
      durationOrNull: {
        description: "A duration, or null for unlimited.",
        type: ["string", "integer", "null"],
        pattern: DURATION_PATTERN,
        minimum: 0,
      },
      signedDuration: {
        description: "A duration that may be negative.",
        type: ["string", "integer"],
        pattern: SIGNED_DURATION_PATTERN,
      },
      perSlotDurations: {
        description: "One duration per input, in slot order.",
        type: "array",
        items: { $ref: "#/definitions/duration" },
      },
      perSlotSignedDurations: {
        description: "One (possibly negative) duration per input, in slot order.",
        type: "array",
        items: { $ref: "#/definitions/signedDuration" },
      },
      vector3: { type: "array", minItems: 3, maxItems: 3, items: { type: "number" } },
    },
  };
}

/** A closed object schema with one property per parameter. */
function objectOf(
  parameters: readonly ParameterDescriptor[],
  leading: Json = {},
  description?: string,
): Json {
  const required = parameters.filter((p) => p.required === true).map((p) => p.name);
  const properties: Json = { ...leading };
  for (const p of parameters) {
    properties[p.name] = parameterSchema(p);
  }
  return {
    ...(description != undefined ? { description } : {}),
    type: "object",
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties,
  };
}

/** The schema of one parameter's value, with its help and default as the description. */
export function parameterSchema(p: ParameterDescriptor): Json {
  const description = describeParameter(p);
  switch (p.kind) {
    case "count":
      return { type: "integer", ...bounds(p), description };
    case "number":
      return { type: "number", ...bounds(p), description };
    case "boolean":
      return { type: "boolean", description };
    case "string":
      return { type: "string", minLength: 1, description };
    case "choice":
      return { enum: [...(p.choices ?? [])], description };
    case "duration":
      return { $ref: "#/definitions/duration", description };
    case "nullableDuration":
      return { $ref: "#/definitions/durationOrNull", description };
    case "perSlotDuration":
      return { $ref: "#/definitions/perSlotDurations", description };
    case "perSlotSignedDuration":
      return { $ref: "#/definitions/perSlotSignedDurations", description };
    case "trigger":
      return { description, type: ["integer", "string"], minimum: 0, pattern: "^any$" };
    case "group": {
      const group = objectOf(p.fields ?? []);
      if (p.perSlotGroup !== true) {
        return { ...group, description };
      }
      return {
        description,
        type: ["object", "array"],
        additionalProperties: false,
        properties: group.properties,
        items: group,
      };
    }
  }
}

/** "Help. Default X." / "Help. Required." — the text the schema and docs show. */
export function describeParameter(p: ParameterDescriptor): string {
  const help = p.help.endsWith(".") ? p.help : `${p.help}.`;
  if (p.required === true) {
    return `${help} Required.`;
  }
  const text = defaultTextOf(p);
  return text === ""
    ? help
    : `${help} Default ${JSON.stringify(p.default) === `"${text}"` ? `"${text}"` : text}.`;
}

function bounds(p: ParameterDescriptor): Json {
  const out: Json = {};
  if (p.minimum != undefined) {
    out.minimum = p.minimum;
  }
  if (p.exclusiveMinimum != undefined) {
    out.exclusiveMinimum = p.exclusiveMinimum;
  }
  if (p.maximum != undefined) {
    out.maximum = p.maximum;
  }
  return out;
}
