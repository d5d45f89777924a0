import type { LockstepConfig } from "./panelConfig";
import { topicGuess } from "../../pipeline";

/** An input topic the data source does not have, and what the user most likely meant. */
export interface MissingTopic {
  readonly topic: string;
  /** The data source's topics closest to it (topicGuess: leading slash, same last name, typo); may be empty. */
  readonly guesses: readonly string[];
}

/**
 * The config's input topics that are not among `sourceTopics`, each once, in slot order. Empty
 * while the data source's topics are unknown (undefined), so that nothing is flagged before the
 * host reports them; empty topics (a slot not chosen yet) are not "missing".
 */
export function missingTopics(config: Pick<LockstepConfig, "inputs">, sourceTopics: readonly string[] | undefined): MissingTopic[] {
  if (sourceTopics == undefined) {
    return [];
  }
  const have = new Set(sourceTopics);
  const out: MissingTopic[] = [];
  for (const { topic } of config.inputs) {
    if (topic !== "" && !have.has(topic) && !out.some((m) => m.topic === topic)) {
      out.push({ topic, guesses: topicGuess(topic, sourceTopics) });
    }
  }
  return out;
}

/** At most this many of the data source's topics are listed in one sentence. */
const MAX_LISTED = 12;

/** The data source's topics as a sentence ending ("its topics are …, and N more"); at most MAX_LISTED named. */
export function sourceTopicsText(sourceTopics: readonly string[]): string {
  if (sourceTopics.length === 0) {
    return "the data source has no topic";
  }
  const more = sourceTopics.length > MAX_LISTED ? `, and ${sourceTopics.length - MAX_LISTED} more` : "";
  return `its topics are ${sourceTopics.slice(0, MAX_LISTED).join(", ")}${more}`;
}

/**
 * One sentence per missing topic, naming it and the likely intended topic ("/odom is not in this
 * data source; did you mean /husky_velocity_controller/odom?"); when no topic is close, the data
 * source's topics instead. Same guessing rules as the CLI's `analyze`.
 */
export function missingTopicsText(missing: readonly MissingTopic[], sourceTopics: readonly string[]): string[] {
  return missing.map(({ topic, guesses }) =>
    guesses.length > 0
      ? `${topic} is not in this data source; did you mean ${guesses.slice(0, 3).join(" or ")}?`
      : `${topic} is not in this data source; ${sourceTopicsText(sourceTopics)}.`,
  );
}
