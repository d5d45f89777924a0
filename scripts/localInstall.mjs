// Installs the extension for the desktop apps, as `foxglove-extension install` does for Foxglove
// alone: the production build, unzipped, in each app's extensions folder
//   Foxglove:   ~/.foxglove-studio/extensions/<id>-<version>/  (~/snap/foxglove-studio/current/... for the snap)
//   Lichtblick: ~/.lichtblick-suite/extensions/<id>-<version>/
// Older versions of the same extension are removed first.
// Usage: node scripts/localInstall.mjs [--app foxglove|lichtblick|all] [--no-build]
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const appArg = args.includes("--app") ? args[args.indexOf("--app") + 1] : "all";
if (!["foxglove", "lichtblick", "all"].includes(appArg ?? "")) {
  console.error(`--app must be foxglove, lichtblick or all (got ${appArg})`);
  process.exit(2);
}
if (!args.includes("--no-build")) {
  execFileSync("npm", ["run", "foxglove:prepublish"], { cwd: root, stdio: "inherit" });
}
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
// The id the apps use: publisher.name, lower-cased, non-word characters removed.
const id = `${pkg.publisher}.${pkg.name}`.toLowerCase().replace(/[^\w.-]/g, "");
const home = homedir();
const snap = join(home, "snap/foxglove-studio/current");
const folders = {
  foxglove: join(existsSync(snap) ? snap : home, ".foxglove-studio/extensions"),
  lichtblick: join(home, ".lichtblick-suite/extensions"),
};
for (const app of appArg === "all" ? ["foxglove", "lichtblick"] : [appArg]) {
  const base = folders[app];
  mkdirSync(base, { recursive: true });
  for (const old of readdirSync(base)) {
    if (old.startsWith(`${id}-`)) {
      rmSync(join(base, old), { recursive: true, force: true });
    }
  }
  const dest = join(base, `${id}-${pkg.version}`);
  mkdirSync(dest, { recursive: true });
  for (const file of ["package.json", "README.md", "CHANGELOG.md"]) {
    cpSync(join(root, file), join(dest, file));
  }
  cpSync(join(root, "dist"), join(dest, "dist"), { recursive: true });
  console.log(`installed ${id}-${pkg.version} for ${app} in ${dest}`);
}
