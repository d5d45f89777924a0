// The index data records (op 4) a ROS 1 bag writer puts right after each chunk, one per connection
// in the chunk: where each of its message records lies in the chunk's data.
import type { ChunkConnectionIndex, ChunkIndexEntry } from "./bagChunkSpans";
import { INDEX_ENTRY, OP_INDEX_DATA, parseFields } from "./bagRecords";

/**
 * Room allowed per index data record for its header and lengths: rosbag's four fields take 55
 * bytes; the rest leaves room for a writer that adds a field.
 */
const INDEX_RECORD_OVERHEAD = 256;

/**
 * How many bytes to read after a chunk for its index data records, whose chunk info states
 * `counts`: at most what records of those counts take with headers of up to
 * `INDEX_RECORD_OVERHEAD` bytes, and never past `room` (where the next chunk or the index starts).
 */
export function indexDataReadSize(counts: readonly { readonly count: number }[], room: number): number {
  const most = counts.reduce((sum, { count }) => sum + count * INDEX_ENTRY + INDEX_RECORD_OVERHEAD, 0);
  return Math.max(0, Math.min(room, most));
}

/**
 * The first `n` records of `bytes` (which starts at a record) as index data records, in their
 * order; undefined when any of them is not an index data record of version 1 with `conn` and
 * `count` fields whose data holds exactly `count` entries, or does not lie whole inside `bytes`.
 * Offsets and times are as stored: `planChunkSpans` judges whether they add up.
 */
export function parseIndexDataRecords(bytes: Uint8Array, n: number): ChunkConnectionIndex[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: ChunkConnectionIndex[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (at + 4 > bytes.byteLength) {
      return undefined;
    }
    const headerLength = view.getUint32(at, true);
    if (at + 8 + headerLength > bytes.byteLength) {
      return undefined;
    }
    let fields: Map<string, Uint8Array>;
    try {
      fields = parseFields(bytes.subarray(at + 4, at + 4 + headerLength), 0);
    } catch {
      return undefined;
    }
    const dataLength = view.getUint32(at + 4 + headerLength, true);
    const start = at + 8 + headerLength;
    const number = (name: string): number | undefined => {
      const field = fields.get(name);
      return field?.byteLength === 4 ? new DataView(field.buffer, field.byteOffset, 4).getUint32(0, true) : undefined;
    };
    const op = fields.get("op");
    const conn = number("conn");
    const count = number("count");
    if (op?.byteLength !== 1 || op[0] !== OP_INDEX_DATA || number("ver") !== 1 || conn == undefined || count == undefined) {
      return undefined;
    }
    if (dataLength !== count * INDEX_ENTRY || start + dataLength > bytes.byteLength) {
      return undefined;
    }
    const entries: ChunkIndexEntry[] = [];
    for (let e = start; e < start + dataLength; e += INDEX_ENTRY) {
      entries.push({ time: { sec: view.getUint32(e, true), nsec: view.getUint32(e + 4, true) }, offset: view.getUint32(e + 8, true) });
    }
    out.push({ conn, entries });
    at = start + dataLength;
  }
  return out;
}
