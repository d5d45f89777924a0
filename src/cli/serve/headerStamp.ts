const HEADER_RE = /^\s*(?:std_msgs\/(?:msg\/)?)?Header\s+header\s*$/;
const NS = 1_000_000_000n;

/**
 * Whether a ROS message definition (ROS 1 `.msg` or ROS 2 `.msg`) starts with `Header header`:
 * then the serialized message begins with its header, whose stamp `shiftHeaderStamp` can move.
 */
export function startsWithHeader(definition: string): boolean {
  for (const line of definition.split("\n")) {
    const t = line.replace(/#.*/, "").trim();
    if (t === "") {
      continue;
    }
    return HEADER_RE.test(t);
  }
  return false;
}

/** The message encodings whose header stamp `shiftHeaderStamp` can move. */
export type ShiftableEncoding = "ros1" | "cdr";

/**
 * Where the header stamp of a serialized message starts and whether it is little-endian: ROS 1
 * (seq uint32, then stamp sec uint32, nsec uint32, little-endian) or CDR (4-byte encapsulation
 * header, then stamp sec int32, nanosec uint32, in the encapsulation's byte order). Undefined when
 * the data is too short or the CDR encapsulation is not plain CDR.
 */
function stampLayout(encoding: ShiftableEncoding, data: Uint8Array): { offset: number; littleEndian: boolean } | undefined {
  if (data.byteLength < 12) {
    return undefined;
  }
  if (encoding === "ros1") {
    return { offset: 4, littleEndian: true };
  }
  const kind = data[1];
  if (data[0] !== 0 || (kind !== 0 && kind !== 1)) {
    return undefined;
  }
  return { offset: 4, littleEndian: kind === 1 };
}

/**
 * Copy of a serialized message (a definition that `startsWithHeader`) with its header stamp moved
 * by `offsetNs`, exactly (as a looped or `--now` playback needs: the stamps move with the receive
 * times, as a live robot's would). The data comes back unchanged (not copied) when the offset is
 * 0, and copied unchanged when its stamp is unset (0, 0), unreadable, or would leave the range of
 * the seconds field (uint32 in ROS 1, int32 in CDR). The input is never modified.
 */
export function shiftHeaderStamp(encoding: ShiftableEncoding, data: Uint8Array, offsetNs: bigint): Uint8Array {
  if (offsetNs === 0n) {
    return data;
  }
  const layout = stampLayout(encoding, data);
  const out = new Uint8Array(data);
  if (layout == undefined) {
    return out;
  }
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const { offset, littleEndian } = layout;
  const sec = BigInt(view.getUint32(offset, littleEndian));
  const nsec = BigInt(view.getUint32(offset + 4, littleEndian));
  if ((sec === 0n && nsec === 0n) || nsec >= NS) {
    return out;
  }
  const total = sec * NS + nsec + offsetNs;
  if (total < 0n || total / NS > (encoding === "cdr" ? 0x7fff_ffffn : 0xffff_ffffn)) {
    return out;
  }
  view.setUint32(offset, Number(total / NS), littleEndian);
  view.setUint32(offset + 4, Number(total % NS), littleEndian);
  return out;
}
