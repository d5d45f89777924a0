// @foxglove/wasm-lz4's Emscripten factory (its package declares only `decompress`): each call
// makes a new instance of the WebAssembly module. Lz4Frames states what it uses of it.
declare module "@foxglove/wasm-lz4/dist/wasm-lz4.js" {
  const createModule: () => Promise<unknown>;
  export default createModule;
}
