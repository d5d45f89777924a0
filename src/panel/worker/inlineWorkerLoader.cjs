// Webpack loader for `import source from "./file?worker"`: compiles `file` (with the loaders that
// follow this one, i.e. ts-loader) as a separate Web Worker bundle in a child compilation and
// returns its JavaScript as the module's default export (a string). The worker bundle is not
// emitted as a file: the extension stays one commonjs2 file, as Foxglove and Lichtblick require.
"use strict";

const WORKER_FILE = "lockstep-inline-worker.js";

module.exports = function inlineWorkerLoader() {
  // Everything happens in the pitch phase.
};

module.exports.pitch = function pitch(remainingRequest) {
  const callback = this.async();
  const parent = this._compilation;
  const { webpack } = this._compiler;
  const child = parent.createChildCompiler(
    `lockstep-worker ${this.resourcePath}`,
    { filename: WORKER_FILE, chunkFilename: `[id].${WORKER_FILE}`, publicPath: "", library: undefined },
    [
      new webpack.webworker.WebWorkerTemplatePlugin(),
      new webpack.LoaderTargetPlugin("webworker"),
      // One chunk only: a Blob-URL worker cannot fetch split chunks.
      new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
      // "!!" skips the configured rules (so this loader does not recurse); the remaining request
      // still names ts-loader explicitly.
      new webpack.EntryPlugin(this.context, `!!${remainingRequest.replace(/\?worker$/, "")}`, "worker"),
    ],
  );
  child.runAsChild((err, _entries, compilation) => {
    if (err) {
      callback(err);
      return;
    }
    if (compilation.errors.length > 0) {
      callback(compilation.errors[0]);
      return;
    }
    const asset = compilation.assets[WORKER_FILE];
    if (asset == undefined) {
      callback(new Error(`worker bundle for ${this.resourcePath} was not produced`));
      return;
    }
    const source = asset.source().toString();
    // runAsChild copies the child's assets into the parent: keep dist/ to the single file.
    for (const name of Object.keys(compilation.assets)) {
      parent.deleteAsset(name);
    }
    callback(null, `export default ${JSON.stringify(source)};\n`);
  });
};
