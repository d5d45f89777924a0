import type { ReactElement } from "react";

import type { AppliedFix } from "./appliedFix";
import type { Theme } from "./theme";
import type { WholeRecording } from "../hooks/useAnalysis";
import type { LockstepConfig } from "../settings/panelConfig";
import type { ViewStore } from "../state/ViewStore";
import type { RawPlacement } from "../state/startAlignment";

/** Everything a view may read: the accumulated results, the config, the host's state and size. */
export interface ViewProps {
  /** The results so far (bounded ring buffers; `version` changes on every update). */
  readonly store: ViewStore;
  /** Increases on every store change (pass to memo keys and canvases). */
  readonly version: number;
  /** The panel's configuration (plain JSON, possibly invalid). */
  readonly config: LockstepConfig;
  /** Input topics in slot order. */
  readonly topics: readonly string[];
  /** The data source's topic names, when the host has reported them (undefined: not known / not passed). */
  readonly sourceTopics?: readonly string[];
  readonly theme: Theme;
  readonly scheme: "dark" | "light" | undefined;
  /** Room for the view (px). */
  readonly width: number;
  readonly height: number;
  /** The playback position on the store's time base (relative ns), when known. */
  readonly playhead: number | undefined;
  /** Formats a relative stamp (ns) in the app's time format. */
  readonly formatStamp: (stamp: number) => string;
  /** Seeks the recording to a relative stamp (ns); undefined when the data source cannot seek. */
  readonly seek: ((stamp: number) => void) | undefined;
  /** Shows a preview time in the app (hover), undefined clears it; undefined when unsupported. */
  readonly preview: ((stamp: number | undefined) => void) | undefined;
  /** The policy run beside the configured one, and how to change it (never resets the results). */
  readonly compare: { readonly type: string; readonly setType: (type: string) => void };
  /** Where the trajectory tab draws raw odometry, and how to change it (never resets the results). */
  readonly trajectory: { readonly rawPlacement: RawPlacement; readonly setRawPlacement: (placement: RawPlacement) => void };
  /** Asks for a diagnosis of the results so far (it arrives in `store.diagnosis`). */
  readonly diagnose: () => void;
  /** Asks what decided the drop of the message on `slot` with this stamp (it arrives in `store.explanation`). */
  readonly explain: (slot: number, stamp: number) => void;
  /**
   * Applies a diagnosis fix: its policy replaces the configured one (a suggestion's complete
   * policy config), or its stamp sources are set by topic (a cause's stamp fix); the analysis
   * re-runs, and the fix is remembered as `applied`.
   */
  readonly applyFix: (fix: AppliedFix) => void;
  /** The last fix applied, while the config still has it (see `fixInForce`). */
  readonly applied: AppliedFix | undefined;
  /** The whole-recording analysis's state. */
  readonly whole: WholeRecording;
}

/**
 * One view of the panel: a tab. Adding a view is one file exporting a PanelView and one line in
 * views/registry.ts; nothing else in the panel changes.
 */
export interface PanelView {
  /** Stable id (tab test id `tab-<id>`). */
  readonly id: string;
  /** Tab label. */
  readonly label: string;
  /** Whether the view scrolls inside the panel (false: it sizes itself to `height`). */
  readonly scrolls: boolean;
  readonly render: (props: ViewProps) => ReactElement;
}
