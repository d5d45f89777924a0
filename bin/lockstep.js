#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so `npx lockstep …` works right after `npm ci`
// with no separate build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
