// Extra checks the real-app suite runs in both apps, on the panel right after "Analyze whole
// recording" finished and its numbers matched `lockstep analyze`. A check is one file exporting a
// RealAppCheck, plus one line in REAL_APP_CHECKS below.
import type { Page } from "playwright-core";

import { fusionSummaryCheck } from "./fusionSummaryCheck";
import type { AnalyzeSummary } from "./setup";

/** What a check gets: the app's page with the analyzed panel, and the CLI's run on the same input. */
export interface RealAppCheckContext {
  /** The app's folder under ../shared/hosts (APPS.lichtblick or APPS.studio). */
  readonly app: string;
  /** The app, showing the Lockstep panel (one in the layout) with the whole recording analyzed. */
  readonly page: Page;
  /** The recording's absolute path. */
  readonly file: string;
  /** The panel's configuration, exactly what `lockstep analyze` was given. */
  readonly config: unknown;
  /** `lockstep analyze file --config config`'s summary.json. */
  readonly summary: AnalyzeSummary;
}

/**
 * One check. `run` may click the panel's tabs and read it; it must not edit the settings, reload
 * or close the page (the suite goes on with publish edits and a reload after the checks). It fails
 * by throwing (expect); the suite prefixes the failure with the title.
 */
export interface RealAppCheck {
  readonly title: string;
  run(context: RealAppCheckContext): Promise<void>;
}

/** The checks, in the order they run. */
export const REAL_APP_CHECKS: readonly RealAppCheck[] = [fusionSummaryCheck];
