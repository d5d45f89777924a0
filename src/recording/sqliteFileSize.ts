import type { ByteSource } from "./ByteSource";

/** Bytes of the SQLite database header (the file format's first 100 bytes). */
const HEADER_BYTES = 100;

/** A SQLite file cut short: its size, and what its header declares. */
export interface SqliteCut {
  readonly size: number;
  /** Bytes the header declares: `pages` × `pageSize`. */
  readonly declared: number;
  readonly pages: number;
  readonly pageSize: number;
}

/**
 * Where a SQLite database file was cut short: its size when it is smaller than the pages its
 * header declares (page size at byte 16, page count at byte 28, trusted when the "version valid
 * for" number at byte 92 equals the change counter at byte 24, as SQLite itself does), with what
 * the header declares; undefined when the file is whole or its header says nothing usable.
 */
export async function sqliteCutShort(source: ByteSource): Promise<SqliteCut | undefined> {
  if (source.size < HEADER_BYTES) {
    return undefined;
  }
  const header = await source.read(0, HEADER_BYTES);
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  const rawPageSize = view.getUint16(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = view.getUint32(28);
  const valid = view.getUint32(92) === view.getUint32(24);
  if (!valid || pages === 0 || pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    return undefined;
  }
  const declared = pages * pageSize;
  return declared > source.size ? { size: source.size, declared, pages, pageSize } : undefined;
}
