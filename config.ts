// Webpack override for `foxglove-extension build` (loaded by plain require: CommonJS, no TS syntax).
//
// 1. `import source from "./x?worker"` compiles x.ts and its imports into one self-contained Web
//    Worker script and inlines it as a string (src/panel/worker/inlineWorkerLoader.cjs): the host
//    loads dist/extension.js as a single commonjs2 file, so a worker cannot live in its own file.
// 2. ts-loader runs transpile-only: `npm run typecheck` is the type check, and a half-written file
//    elsewhere in the tree must not break the extension build.
const path = require("path");

module.exports = {
  webpack: (config) => {
    // The template's production build inlines a source map (90 % of the bundle, inherited again by
    // the worker's child compilation): production ships none.
    if (config.mode === "production") {
      config.devtool = false;
    }
    for (const rule of config.module.rules) {
      for (const use of Array.isArray(rule.use) ? rule.use : []) {
        if (use && use.loader === "ts-loader") {
          use.options = { ...use.options, transpileOnly: true };
        }
      }
    }
    config.module.rules.unshift({
      resourceQuery: /\?worker$/,
      use: [{ loader: path.resolve(__dirname, "src/panel/worker/inlineWorkerLoader.cjs") }],
    });
    return config;
  },
};
