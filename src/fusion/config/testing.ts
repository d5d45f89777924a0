// Test support (no production file imports it).

/** What `f` throws, or undefined when it returns: for asserting an error's type and fields. */
export function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}
