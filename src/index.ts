import type { ExtensionContext } from "@foxglove/extension";

import { initLockstepPanel } from "./panel/LockstepPanel";

/** Extension entry point: registers the "Lockstep" panel. The name never changes (layouts use it). */
export function activate(extensionContext: ExtensionContext): void {
  extensionContext.registerPanel({ name: "Lockstep", initPanel: initLockstepPanel });
}
