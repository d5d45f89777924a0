import { RecordingError, type RecordingDamage } from "./RecordingError";

/**
 * The damaged regions one read skipped: each is reported to the read's `onDamage` as soon as it
 * is found, and `finish()` throws the RecordingError that names them all.
 */
export class DamageLog {
  readonly #list: RecordingDamage[] = [];
  readonly #onDamage: ((d: RecordingDamage) => void) | undefined;

  public constructor(onDamage: ((d: RecordingDamage) => void) | undefined) {
    this.#onDamage = onDamage;
  }

  /** How many regions were skipped so far. */
  public get count(): number {
    return this.#list.length;
  }

  /**
   * Records one skipped region (`offset` undefined when it has no byte offset, as SQLite rows);
   * `lost` (per topic) is kept only when it says something.
   */
  public add(offset: number | undefined, reason: string, lost?: ReadonlyMap<string, number>): void {
    const damage: RecordingDamage = { offset, reason, lost: lost && lost.size > 0 ? lost : undefined };
    this.#list.push(damage);
    this.#onDamage?.(damage);
  }

  /**
   * Takes over the damages of an inner read that went past them (`RecordingError.readPast`),
   * which already reported them to the same `onDamage`.
   */
  public adopt(damages: readonly RecordingDamage[]): void {
    this.#list.push(...damages);
  }

  /** Ends a read: throws `RecordingError.afterDamage` when anything was skipped. */
  public finish(): void {
    if (this.#list.length > 0) {
      throw RecordingError.afterDamage(this.#list);
    }
  }
}
