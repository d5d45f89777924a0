/** Limits of {@link ClientLog}. */
export interface ClientLogOptions {
  /** Lines logged per client connection before its lines are only counted (default 20). */
  readonly linesPerClient?: number;
  /**
   * Lines logged per minute across all clients (default 200): a client that reconnects in a
   * loop gets a fresh budget each time, and must not flood the log that way either.
   */
  readonly linesPerMinute?: number;
  /** Wall clock in ms (default `Date.now`). */
  readonly nowMs?: () => number;
}

const MINUTE_MS = 60_000;

/**
 * The server log for lines that clients cause at will (protocol errors, refused or relayed
 * advertisements). Each connection has its own budget, so a noisy client cannot hide what
 * another one does; a shared per-minute budget caps them all together.
 *
 * Guarantees: at most `linesPerClient` lines per connection and `linesPerMinute` lines per minute
 * (plus one summary line each for what was held back); every line held back is counted and the
 * count is logged: a connection's when it closes, the shared one with the first line of the next
 * minute. Memory is one counter per open connection.
 */
export class ClientLog {
  readonly #log: (line: string) => void;
  readonly #perClient: number;
  readonly #perMinute: number;
  readonly #nowMs: () => number;
  /** Per open connection: lines logged and lines held back. */
  readonly #clients = new Map<string, { logged: number; held: number }>();
  #windowStart = Number.NEGATIVE_INFINITY;
  #windowLogged = 0;
  #windowHeld = 0;

  public constructor(log: (line: string) => void, options: ClientLogOptions = {}) {
    this.#log = log;
    this.#perClient = options.linesPerClient ?? 20;
    this.#perMinute = options.linesPerMinute ?? 200;
    this.#nowMs = options.nowMs ?? Date.now;
  }

  /** Logs `line`, caused by the connection named `client`, if both budgets allow it. */
  public line(client: string, line: string): void {
    let counts = this.#clients.get(client);
    if (counts == undefined) {
      counts = { logged: 0, held: 0 };
      this.#clients.set(client, counts);
    }
    if (counts.logged >= this.#perClient) {
      counts.held++;
      return;
    }
    if (!this.#takeShared()) {
      return; // counted in the shared budget's summary
    }
    counts.logged++;
    this.#log(line);
    if (counts.logged === this.#perClient) {
      this.#log(`client ${client}: further lines it causes are only counted until it disconnects`);
    }
  }

  /** The connection named `client` closed: logs what it had held back and forgets it. */
  public closed(client: string): void {
    const counts = this.#clients.get(client);
    this.#clients.delete(client);
    if (counts != undefined && counts.held > 0) {
      this.#log(`client ${client}: ${counts.held} more ${counts.held === 1 ? "line" : "lines"} about it not logged`);
    }
  }

  /** Whether the shared budget of this minute allows one more line (opening a new minute first). */
  #takeShared(): boolean {
    const now = this.#nowMs();
    if (now - this.#windowStart >= MINUTE_MS) {
      if (this.#windowHeld > 0) {
        this.#log(`${this.#windowHeld} client log ${this.#windowHeld === 1 ? "line was" : "lines were"} not logged in the last minute (at most ${this.#perMinute} a minute)`);
      }
      this.#windowStart = now;
      this.#windowLogged = 0;
      this.#windowHeld = 0;
    }
    if (this.#windowLogged >= this.#perMinute) {
      this.#windowHeld++;
      return false;
    }
    this.#windowLogged++;
    return true;
  }
}
