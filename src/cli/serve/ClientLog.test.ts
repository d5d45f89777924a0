import { describe, expect, it } from "vitest";

import { ClientLog } from "./ClientLog";

function setup(options: { linesPerClient?: number; linesPerMinute?: number } = {}) {
  const lines: string[] = [];
  let now = 0;
  const log = new ClientLog((l) => lines.push(l), { ...options, nowMs: () => now });
  return {
    log,
    lines,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("ClientLog", () => {
  it("gives each client its own budget: a noisy client does not hide another one's lines", () => {
    const { log, lines } = setup({ linesPerClient: 3 });
    for (let i = 0; i < 50; i++) {
      log.line("noisy", `noisy ${i}`);
    }
    log.line("quiet", "quiet 0");
    expect(lines).toEqual([
      "noisy 0",
      "noisy 1",
      "noisy 2",
      "client noisy: further lines it causes are only counted until it disconnects",
      "quiet 0",
    ]);
    log.closed("noisy");
    expect(lines.at(-1)).toBe("client noisy: 47 more lines about it not logged");
  });

  it("says nothing more on close when nothing was held back, and forgets closed clients", () => {
    const { log, lines } = setup({ linesPerClient: 2 });
    log.line("a", "a 0");
    log.closed("a");
    expect(lines).toEqual(["a 0"]);
    // A new connection with the same name starts with a fresh budget.
    log.line("a", "a 1");
    log.line("a", "a 2");
    expect(lines.slice(1, 3)).toEqual(["a 1", "a 2"]);
  });

  it("caps all clients together per minute, and counts what it held back in the next minute's first line", () => {
    const { log, lines, advance } = setup({ linesPerClient: 2, linesPerMinute: 4 });
    // A client reconnecting in a loop: each connection is within its own budget.
    for (let c = 0; c < 10; c++) {
      log.line(`c${c}`, `c${c} says`);
      log.closed(`c${c}`);
    }
    expect(lines).toEqual(["c0 says", "c1 says", "c2 says", "c3 says"]);
    advance(60_000);
    log.line("d", "d says");
    expect(lines.slice(4)).toEqual(["6 client log lines were not logged in the last minute (at most 4 a minute)", "d says"]);
  });

  it("does not count a line twice when both budgets hold it back", () => {
    const { log, lines } = setup({ linesPerClient: 1, linesPerMinute: 1 });
    log.line("a", "a 0");
    log.line("a", "a 1"); // the client's budget
    log.line("b", "b 0"); // the shared budget
    log.closed("a");
    log.closed("b");
    expect(lines).toEqual([
      "a 0",
      "client a: further lines it causes are only counted until it disconnects",
      "client a: 1 more line about it not logged",
    ]);
  });
});
