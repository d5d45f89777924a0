/** `import source from "./file?worker"`: the file built as a self-contained worker script (see config.ts). */
declare module "*?worker" {
  const source: string;
  export default source;
}
