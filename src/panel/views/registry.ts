import { compareView } from "./CompareView";
import { diagnosisView } from "./DiagnosisView";
import { dropsView } from "./DropsView";
import type { PanelView } from "./PanelView";
import { statsView } from "./StatsView";
import { timelineView } from "./Timeline";
import { trajectory3DView } from "./Trajectory3DView";
import { trajectoryView } from "./TrajectoryView";
import { transactionsView } from "./TransactionsView";
import { tuplesView } from "./TuplesTable";

/** The panel's views, in tab order. A new view: its own file exporting a PanelView, plus one line here. */
export const VIEWS: readonly PanelView[] = [
  tuplesView,
  timelineView,
  dropsView,
  statsView,
  transactionsView,
  trajectoryView,
  trajectory3DView,
  compareView,
  diagnosisView,
];
