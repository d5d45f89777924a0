/**
 * Whether a JSON value is an object with fields (not null, not an array): the one test the panel
 * applies to saved state and configs that may be old, hand-edited or half-typed.
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}
