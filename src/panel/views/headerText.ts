import type { ConfigIssue } from "../settings/configErrors";
import { issueText } from "../settings/issueText";
import { missingTopics, missingTopicsText } from "../settings/missingTopics";
import type { LockstepConfig } from "../settings/panelConfig";

/**
 * What the header says after a whole-recording analysis. While the settings are invalid the
 * results on screen are those of the settings before the edit: the text says so, so that they do
 * not look current.
 */
export function analysisDoneText(whole: { readonly cancelled: boolean; readonly messages: number }, settings: { readonly valid: boolean }): string {
  const settingsValid = settings.valid;
  const what = whole.cancelled ? "analysis cancelled" : "whole recording analyzed";
  return settingsValid ? `${what} (${whole.messages} messages)` : `results are of the previous settings (${what}, ${whole.messages} messages); fix the settings to re-run`;
}

/**
 * The header's banners: each config issue where the sidebar shows it, and each input topic the
 * data source lacks with the topic most likely meant (shown even when the config is valid: a
 * missing topic is not a config error, yet it is why no set comes). Each list is empty when there
 * is nothing to say; `missing` is empty until the data source's topics are known.
 */
export function headerNotices(
  config: LockstepConfig,
  issues: readonly ConfigIssue[],
  sourceTopics: readonly string[] | undefined,
): { readonly issues: string[]; readonly missing: string[] } {
  return {
    issues: issues.map((i) => issueText(i, config.policy.type)),
    missing: sourceTopics == undefined ? [] : missingTopicsText(missingTopics(config, sourceTopics), sourceTopics),
  };
}
