import type { PanelExtensionContext, Topic } from "@foxglove/extension";
import { useEffect, useLayoutEffect, useState, type ReactElement } from "react";
import { createRoot } from "react-dom/client";

function LockstepPanel({ context }: { context: PanelExtensionContext }): ReactElement {
  const [topics, setTopics] = useState<readonly Topic[] | undefined>();
  const [renderDone, setRenderDone] = useState<(() => void) | undefined>();

  useLayoutEffect(() => {
    context.onRender = (renderState, done) => {
      setRenderDone(() => done);
      setTopics(renderState.topics);
    };
    context.watch("topics");
  }, [context]);

  useEffect(() => {
    renderDone?.();
  }, [renderDone]);

  return (
    <div style={{ padding: "1rem", fontFamily: "sans-serif" }}>
      <h2 style={{ margin: 0 }}>Lockstep</h2>
      <p>{topics ? `${topics.length} topics available` : "Waiting for a data source…"}</p>
    </div>
  );
}

/** Mounts the Lockstep panel into the host's element; returns the cleanup the host calls. */
export function initLockstepPanel(context: PanelExtensionContext): () => void {
  const root = createRoot(context.panelElement);
  root.render(<LockstepPanel context={context} />);
  return () => {
    root.unmount();
  };
}
