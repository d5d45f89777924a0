import type { DamageLog } from "./DamageLog";

/**
 * Messages of one kind that a read skipped and went on past (rows no reader can place, messages
 * that do not decompress): how many, per topic where the topic is known, and the first, so that
 * one damage line names them all however many there are. Memory: one counter per topic.
 */
export class SkippedMessages {
  readonly #what: string;
  #count = 0;
  #first = "";
  readonly #perTopic = new Map<string, number>();

  /** @param what the kind, as the start of the damage line ("x.db3: message rows that …") */
  public constructor(what: string) {
    this.#what = what;
  }

  /** Counts one skipped message, described by `which` (kept for the first), on `topic` if known. */
  public add(which: string, topic?: string): void {
    if (this.#count++ === 0) {
      this.#first = which;
    }
    if (topic != undefined) {
      this.#perTopic.set(topic, (this.#perTopic.get(topic) ?? 0) + 1);
    }
  }

  /**
   * Adds the damage line to `damage` when any message was skipped, at byte `offset` (undefined
   * for rows and messages without one), with the per-topic counts as what it lost.
   */
  public report(damage: DamageLog, offset?: number): void {
    if (this.#count > 0) {
      damage.add(offset, `${this.#what}: ${this.#count} skipped (the first: ${this.#first})`, this.#perTopic);
    }
  }
}
