/**
 * A short JSON-like preview of an input value, for error messages: at most `max` characters
 * (clipped with "..."). It reads only as much of the value as the preview shows, so a 100,000-key
 * object or an array nested 100,000 deep costs no more than a small one (`JSON.stringify` would
 * serialize all of it, or overflow the stack), and it never throws. Numbers JSON cannot write are
 * shown as JavaScript writes them (`NaN`, `Infinity`), not as JSON's `null`, so the message shows
 * what the reader parsed; binary data (a YAML `!!binary`) is shown by its length.
 */
export function previewValue(value: unknown, max = 60): string {
  const text = preview(value, max + 1);
  return text.length > max ? `${text.slice(0, Math.max(0, max - 3))}...` : text;
}

/** At least the first `budget` characters of the preview, when it has that many. */
function preview(value: unknown, budget: number): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > budget ? value.slice(0, budget) : value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : String(value);
    case "bigint":
      return `${value}n`;
    case "undefined":
      return "undefined";
    case "boolean":
      return String(value);
    case "function":
    case "symbol":
      return `a ${typeof value}`;
    case "object":
      break;
  }
  if (value == undefined) {
    return "null";
  }
  if (ArrayBuffer.isView(value)) {
    return `<${value.byteLength} bytes>`;
  }
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? "an invalid date" : JSON.stringify(value.toISOString());
  }
  const isArray = Array.isArray(value);
  let text = isArray ? "[" : "{";
  let first = true;
  // `for in` with an early exit, not Object.keys: listing the keys of a huge object is linear.
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) {
      continue;
    }
    if (text.length >= budget) {
      return text;
    }
    const child = (value as Record<string, unknown>)[key];
    if (!isArray && typeof child === "undefined") {
      continue; // (as JSON.stringify: absent in objects)
    }
    // Each level adds at least one character, so the depth reached is bounded by the budget.
    text += (first ? "" : ",") + (isArray ? "" : `${JSON.stringify(key)}:`);
    text += preview(child, budget - text.length);
    first = false;
  }
  return text + (isArray ? "]" : "}");
}
