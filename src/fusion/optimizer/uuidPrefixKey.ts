const CANONICAL_PREFIX = /^[0-9a-f]{8}-[0-9a-f]{4}-/;

/**
 * The first 12 hex digits of a lower-case canonical UUID as a number (exact: 48 bits), else NaN.
 * For two such UUIDs, different keys order as the strings do (digits and a–f ascend in both, the
 * dash sits at the same place); equal keys say nothing.
 */
export function uuidPrefixKey(uuid: string): number {
  if (!CANONICAL_PREFIX.test(uuid)) {
    return NaN;
  }
  return parseInt(uuid.slice(0, 8), 16) * 65536 + parseInt(uuid.slice(9, 13), 16);
}
