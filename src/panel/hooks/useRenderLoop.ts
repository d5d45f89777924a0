import type { PanelExtensionContext } from "@foxglove/extension";
import { useLayoutEffect } from "react";

import type { FrameHandler } from "../state/FrameHandler";

/**
 * Hands every render state to the frame handler (which always calls `done`), watches exactly the
 * fields the panel uses, and detaches on unmount (`onRender = undefined`, as the template does).
 */
export function useRenderLoop(context: PanelExtensionContext, handler: FrameHandler): void {
  useLayoutEffect(() => {
    context.onRender = (renderState, done) => {
      handler.handle(renderState, done);
    };
    for (const field of ["topics", "currentFrame", "didSeek", "colorScheme", "currentTime", "startTime", "endTime", "appSettings"] as const) {
      context.watch(field);
    }
    // Older hosts (and test hosts) may lack it although the type says otherwise: the panel then shows seconds.
    (context as Partial<Pick<PanelExtensionContext, "subscribeAppSettings">>).subscribeAppSettings?.(["timeFormat", "timezone"]);
    context.setDefaultPanelTitle("Lockstep");
    return () => {
      context.onRender = undefined;
    };
  }, [context, handler]);
}
