import { listText, upperFirst } from "../../pipeline/diagnosis/format";
import type { TopicCounts } from "../engine/engineTypes";
import { missingTopics, missingTopicsText, sourceTopicsText } from "../settings/missingTopics";

/**
 * What the Diagnosis tab says about inputs without a message, which the policy-run diagnosis
 * cannot explain (with no message there is nothing to re-run): one line per input topic the data
 * source lacks, with the topic most likely meant; else, when the data source's topics are not
 * known, the silent inputs by name. Empty when every input has messages (or none is known yet).
 */
export function topicDiagnosis(
  inputs: readonly { readonly topic: string }[],
  counts: readonly Pick<TopicCounts, "topic" | "messages">[] | undefined,
  sourceTopics: readonly string[] | undefined,
): string[] {
  if (sourceTopics != undefined) {
    const missing = missingTopics({ inputs: [...inputs] }, sourceTopics);
    if (missing.length > 0) {
      return missingTopicsText(missing, sourceTopics);
    }
  }
  const silent = (counts ?? []).filter((c) => c.messages === 0).map((c) => c.topic);
  if (silent.length === 0) {
    return [];
  }
  const one = silent.length === 1;
  return [
    `${listText(silent)} ${one ? "has" : "have"} no message: every set needs one message of each input.` +
      (sourceTopics == undefined
        ? ` Check ${one ? "its" : "their"} name in the panel settings (Input topics; a topic the data source lacks is marked there).`
        : ` ${upperFirst(sourceTopicsText(sourceTopics))}.`),
  ];
}

/** The CLI's pointer to its own command, which a panel user cannot run. */
const LOCKSTEP_INFO = /\s*\(`lockstep info` lists a recording's topics\)/g;

/**
 * A diagnosis text as the panel shows it: the CLI's "(`lockstep info` lists a recording's
 * topics)" becomes the data source's topics (or goes, when they are not known). Other text is
 * unchanged.
 */
export function forPanel(text: string, sourceTopics: readonly string[] | undefined): string {
  return text.replace(LOCKSTEP_INFO, sourceTopics == undefined ? "" : ` (${sourceTopicsText(sourceTopics)})`);
}
