import { dropCountText, finalPoseText, transactionCountText } from "../../pipeline";
import type { FusionSummary } from "../engine/engineTypes";

/** One line of the fusion summary and what it is about (the view colours drops and warnings). */
export interface FusionSummaryLine {
  readonly kind: "transactions" | "drops" | "drop" | "pose" | "warning";
  readonly text: string;
}

/**
 * The fusion run in the words of `lockstep analyze`'s summary (its "fusion:" lines): the
 * transactions per sensor, the drops per reason and the newest of them with what failed, the final
 * pose, the warnings. `formatStamp` shows a relative stamp as the panel shows stamps.
 */
export function fusionSummaryLines(summary: FusionSummary, formatStamp: (stamp: number) => string): FusionSummaryLine[] {
  const lines: FusionSummaryLine[] = [
    { kind: "transactions", text: transactionCountText(summary.transactions, summary.transactionsBySensor) },
    {
      kind: "drops",
      text: summary.drops.length === 0 ? "no fusion drops" : `fusion drops: ${dropCountText(summary.drops)}`,
    },
  ];
  for (const d of summary.latestDrops) {
    lines.push({
      kind: "drop",
      text: `${d.sensor} (${d.topic}) at ${formatStamp(d.stamp)}: ${d.reason}${d.detail === "" ? "" : `, ${d.detail}`}`,
    });
  }
  if (summary.finalPose) {
    lines.push({ kind: "pose", text: finalPoseText(summary.finalPose, formatStamp(summary.finalPose.stamp)) });
  }
  for (const w of summary.warnings) {
    lines.push({ kind: "warning", text: `warning: ${w}` });
  }
  return lines;
}
