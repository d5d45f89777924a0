import protobuf from "protobufjs";
import "protobufjs/ext/descriptor";

/** Full names of the well-known protobuf time types, turned into ROS-like `{sec, nsec}`. */
const TIME_TYPES = new Set([".google.protobuf.Timestamp", ".google.protobuf.Duration"]);

type Converter = (value: unknown) => unknown;

/**
 * A converter from protobufjs's plain object to Lockstep's message shape: field names as the
 * schema spells them, `google.protobuf.Timestamp` / `Duration` as `{sec, nsec}` (so a foxglove.*
 * `timestamp` is a stamp like a ROS header's), 64-bit integers as numbers.
 */
function converterFor(type: protobuf.Type, cache: Map<string, Converter>): Converter {
  const cached = cache.get(type.fullName);
  if (cached) {
    return cached;
  }
  if (TIME_TYPES.has(type.fullName)) {
    const toTime: Converter = (value) => {
      const v = value as { seconds?: unknown; nanos?: unknown } | null;
      if (v == undefined) {
        return undefined;
      }
      return { sec: Number(v.seconds ?? 0), nsec: Number(v.nanos ?? 0) };
    };
    cache.set(type.fullName, toTime);
    return toTime;
  }
  const nested: [string, Converter, boolean][] = [];
  const convert: Converter = (value) => {
    if (value == undefined || nested.length === 0) {
      return value;
    }
    const out = value as Record<string, unknown>;
    for (const [name, fn, repeated] of nested) {
      const v = out[name];
      if (v == undefined) {
        continue;
      }
      out[name] = repeated && Array.isArray(v) ? v.map(fn) : fn(v);
    }
    return out;
  };
  cache.set(type.fullName, convert);
  for (const field of type.fieldsArray) {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      nested.push([field.name, converterFor(resolved, cache), field.repeated]);
    }
  }
  return convert;
}

/**
 * A decoder for protobuf messages of type `typeName` (e.g. "foxglove.PoseInFrame"), from the
 * serialized FileDescriptorSet an MCAP `protobuf` schema carries. Throws when the descriptor set
 * does not parse or does not define the type.
 */
export function protobufDecoder(typeName: string, descriptorSet: Uint8Array): (data: Uint8Array) => unknown {
  const root = protobuf.Root.fromDescriptor(descriptorSet, { keepCase: true });
  root.resolveAll();
  const type = root.lookupType(typeName);
  const convert = converterFor(type, new Map());
  // bytes stay Uint8Array (no `bytes` option); enums as their numbers, as foxglove.* readers expect.
  const options: protobuf.IConversionOptions = { defaults: true, longs: Number, enums: Number };
  return (data) => convert(type.toObject(type.decode(data), options));
}
