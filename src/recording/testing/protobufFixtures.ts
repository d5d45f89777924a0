import { foxgloveEnumSchemas, foxgloveMessageSchemas, generateProto } from "@foxglove/schemas/internal";
import protobuf from "protobufjs";
import { FileDescriptorSet } from "protobufjs/ext/descriptor";

/**
 * Test helper: every foxglove.* schema as protobufjs types (from @foxglove/schemas' .proto
 * text), with google.protobuf.Timestamp and Duration, as the Foxglove SDKs define them.
 */
export function foxgloveProtobufRoot(): protobuf.Root {
  const root = new protobuf.Root();
  for (const file of ["google/protobuf/timestamp.proto", "google/protobuf/duration.proto"]) {
    root.addJSON(protobuf.common.get(file)!.nested!);
  }
  for (const schema of Object.values(foxgloveMessageSchemas)) {
    const enums = Object.values(foxgloveEnumSchemas).filter((e) => e.parentSchemaName === schema.name);
    protobuf.parse(generateProto(schema, enums), root, { keepCase: true });
  }
  root.resolveAll();
  return root;
}

/** Test helper: the serialized FileDescriptorSet of a root (what an MCAP `protobuf` schema holds). */
export function descriptorSetOf(root: protobuf.Root): Uint8Array {
  return FileDescriptorSet.encode(root.toDescriptor("proto3")).finish();
}
