import { BoundedQueue } from "./BoundedQueue";
import type { TimeBase } from "../../time";
import type { Transaction, TransactionJson } from "../core";

/** One recorded sensor transaction: who sent it and the transaction after its motion models. */
export interface LoggedTransaction {
  readonly sensor: string;
  readonly tx: Transaction;
}

/** A recorded transaction as handed to a streaming listener. */
export interface TransactionRecord extends LoggedTransaction {
  /** 0-based position in the whole run. */
  readonly index: number;
  /** Its DESIGN §3.4 JSON line (written once, on first use). */
  line(): string;
}

interface Entry extends LoggedTransaction {
  json: TransactionJson | undefined;
  line: string | undefined;
}

/**
 * The transactions a fusion run processed, as DESIGN §3.4 JSON lines: counted over the whole run,
 * streamed to listeners as they are recorded, and retained for reading or draining under a bound
 * (`setLimit`, newest kept). Memory is therefore the retention bound, not the recording's length:
 * a consumer that streams (analyze writing transactions.jsonl) keeps `limit` 0.
 *
 * Each transaction's JSON (`Transaction.toJson`) is built once, and its line (JSON.stringify of it)
 * written once, when first asked for by a listener, `lines`, `drain` or `drainJson`.
 */
export class TransactionLog {
  readonly #base: TimeBase;
  readonly #kept: BoundedQueue<Entry>;
  readonly #listeners: ((record: TransactionRecord) => void)[] = [];
  readonly #perSensor = new Map<string, number>();
  #count = 0;

  public constructor(base: TimeBase, limit = Infinity) {
    this.#base = base;
    this.#kept = new BoundedQueue<Entry>(limit, "transactions");
  }

  /** Bounds the retained transactions (the newest `limit`). Throws RangeError for a bad limit. */
  public setLimit(limit: number): void {
    this.#kept.setLimit(limit, "transactions");
  }

  /** Streams every transaction recorded from now on. Returns a function that unsubscribes. */
  public onTransaction(listener: (record: TransactionRecord) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) {
        this.#listeners.splice(i, 1);
      }
    };
  }

  /** Records one processed transaction. */
  public record(sensor: string, tx: Transaction): void {
    const entry: Entry = { sensor, tx, json: undefined, line: undefined };
    const index = this.#count++;
    this.#perSensor.set(sensor, (this.#perSensor.get(sensor) ?? 0) + 1);
    this.#kept.push(entry);
    if (this.#listeners.length > 0) {
      const record: TransactionRecord = { sensor, tx, index, line: () => this.#line(entry) };
      for (const l of this.#listeners) {
        l(record);
      }
    }
  }

  /** Transactions recorded in the whole run. */
  public get count(): number {
    return this.#count;
  }

  /** Per sensor, transactions recorded in the whole run. */
  public get perSensor(): ReadonlyMap<string, number> {
    return this.#perSensor;
  }

  /** Transactions currently retained. */
  public get retainedCount(): number {
    return this.#kept.length;
  }

  /** The retained transactions' lines, oldest first. */
  public lines(): string[] {
    const out: string[] = [];
    for (const e of this.#kept) {
      out.push(this.#line(e));
    }
    return out;
  }

  /** Hands out the retained lines, oldest first, and forgets them. */
  public drain(): string[] {
    return this.#kept.drain().map((e) => this.#line(e));
  }

  /** Hands out the retained transactions as DESIGN §3.4 objects, oldest first, and forgets them. */
  public drainJson(): TransactionJson[] {
    return this.#kept.drain().map((e) => this.#json(e));
  }

  #json(e: Entry): TransactionJson {
    e.json ??= e.tx.toJson(this.#base, e.sensor);
    return e.json;
  }

  #line(e: Entry): string {
    e.line ??= JSON.stringify(this.#json(e));
    return e.line;
  }
}
