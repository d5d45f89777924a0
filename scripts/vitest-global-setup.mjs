// Builds the prebuilt CLI once before the tests, so tests that spawn bin/lockstep.js run the
// current sources (a bundle from an older checkout would otherwise be used).
export async function setup() {
  await import("./build-cli.mjs");
}
