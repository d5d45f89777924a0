// @ts-check
const foxglove = require("@foxglove/eslint-plugin");
const globals = require("globals");
const tseslint = require("typescript-eslint");

module.exports = tseslint.config(
  {
    ignores: ["dist/**", "build/**", "node_modules/**", "e2e/artifacts/**", "out/**", "**/*.cjs", "bin/**", "assembly/**"],
  },
  {
    files: ["src/**/*.ts", "src/**/*.tsx", "bench/**/*.ts", "e2e/**/*.ts", "e2e/**/*.tsx"],
    extends: [foxglove.configs.base, foxglove.configs.react, foxglove.configs.typescript],
    languageOptions: {
      globals: { ...globals.es2020, ...globals.browser },
      parserOptions: { project: "tsconfig.json", tsconfigRootDir: __dirname },
    },
    rules: {
      "react-hooks/exhaustive-deps": "error",
    },
  },
);
