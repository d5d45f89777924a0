import { describe, expect, it } from "vitest";

import { Fnv64 } from "./Fnv64";
import {
  generateW3,
  outputHash,
  streamHash,
  W3_TOPICS,
  W3E_OFFSET_NS,
  w3eSecNsec,
  w3eTimeBase,
  W3Stream,
} from "./w3";
import { mulberry32Uint } from "../src/testing/random";

// Independent oracle: the W3.md fold written with bigint.
const MASK = (1n << 64n) - 1n;
function bigFold(values: Iterable<bigint>): string {
  let h = 1469598103934665603n;
  for (const x of values) {
    h = ((h ^ x) * 1099511628211n) & MASK;
  }
  return h.toString(16).padStart(16, "0");
}

// Independent oracle for the generator: materialize everything, then sort (W3.md step 5 literally).
function bruteW3(n: number): { topic: number; stamp: number }[] {
  const draw = mulberry32Uint(42);
  const rates = [30n, 100n, 50n];
  const k = [0n, 0n, 0n];
  const prev = [-1n, -1n, -1n];
  const out: { topic: number; stamp: bigint }[] = [];
  for (let step = 0; step < n; step++) {
    const nominal = k.map((ki, i) => 1_000_000_000n + (ki * 1_000_000_000n) / rates[i]!);
    let t = 0;
    for (let i = 1; i < 3; i++) {
      if (nominal[i]! < nominal[t]!) {
        t = i;
      }
    }
    let stamp = nominal[t]! + BigInt((draw() % 4_000_001) - 2_000_000);
    if (stamp <= prev[t]!) {
      stamp = prev[t]! + 1n;
    }
    prev[t] = stamp;
    k[t]!++;
    out.push({ topic: t, stamp });
  }
  out.sort((x, y) => (x.stamp < y.stamp ? -1 : x.stamp > y.stamp ? 1 : x.topic - y.topic));
  return out.map((m) => ({ topic: m.topic, stamp: Number(m.stamp) }));
}

const FIRST_20 = `0 C 999311789
1 B 999392809
2 A 999720311
3 B 1008485086
4 C 1019697182
5 B 1020819791
6 B 1029505007
7 A 1034590520
8 C 1038585798
9 B 1039184381
10 B 1049413997
11 B 1058412896
12 C 1060917653
13 A 1067227797
14 B 1071198572
15 C 1078975425
16 B 1080616237
17 B 1090596134
18 C 1098335961
19 A 1098505349`;

function counts(topics: Uint8Array): number[] {
  const c = [0, 0, 0];
  for (const t of topics) {
    c[t]!++;
  }
  return c;
}

describe("Fnv64", () => {
  it("matches a bigint fold for safe integers, halves and offsets", () => {
    const xs = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 999311789 * 4 + 2, 123456789012345];
    const h = new Fnv64();
    for (const x of xs) {
      h.fold(x);
    }
    expect(h.hex()).toBe(bigFold(xs.map(BigInt)));

    const base = W3E_OFFSET_NS;
    const h2 = new Fnv64();
    const hi = Number(base >> 32n);
    const lo = Number(base & 0xffffffffn);
    for (const x of xs) {
      h2.foldOffset(hi, lo, x);
    }
    expect(h2.hex()).toBe(bigFold(xs.map((x) => (base + BigInt(x)) & MASK)));
    expect(h2.toBigInt().toString(16).padStart(16, "0")).toBe(h2.hex());
  });

  it("wraps offset sums mod 2^64", () => {
    const h = new Fnv64().foldOffset(0xffffffff, 0xffffffff, 2);
    expect(h.hex()).toBe(bigFold([1n]));
  });

  it("rejects values it cannot fold exactly", () => {
    expect(() => new Fnv64().fold(-1)).toThrow(RangeError);
    expect(() => new Fnv64().fold(2 ** 53)).toThrow(RangeError);
    expect(() => new Fnv64().fold(1.5)).toThrow(RangeError);
  });
});

describe("W3 generator", () => {
  it("delivers the first 20 pairs listed in W3.md", () => {
    const { topics, stamps } = generateW3(1_000_000);
    const lines = [];
    for (let i = 0; i < 20; i++) {
      lines.push(`${i} ${W3_TOPICS[topics[i]!]!} ${stamps[i]!}`);
    }
    expect(lines.join("\n")).toBe(FIRST_20);
    expect(counts(topics)).toEqual([166_667, 555_555, 277_778]);
    expect(stamps[0]).toBe(999311789);
    expect(stamps[stamps.length - 1]).toBe(5556540084406);
    expect(streamHash(topics, stamps)).toBe("448eafddf091c276");
  });

  it("matches W3.md's table for N = 100,000", () => {
    const { topics, stamps } = generateW3(100_000);
    expect(counts(topics)).toEqual([16_667, 55_555, 27_778]);
    expect(stamps[0]).toBe(999311789);
    expect(stamps[stamps.length - 1]).toBe(556541569012);
    expect(streamHash(topics, stamps)).toBe("26e623e5432f3e50");
  });

  it("equals a materialize-and-sort oracle, including short streams cut mid-window", () => {
    for (const n of [0, 1, 2, 3, 7, 20, 101, 5000]) {
      const { topics, stamps } = generateW3(n);
      const brute = bruteW3(n);
      expect(Array.from(topics)).toEqual(brute.map((m) => m.topic));
      expect(Array.from(stamps)).toEqual(brute.map((m) => m.stamp));
    }
  });

  it("streams the same sequence as the materialized arrays", () => {
    const { topics, stamps } = generateW3(3000);
    const s = new W3Stream(3000);
    let i = 0;
    while (s.next()) {
      expect([s.topic, s.stamp]).toEqual([topics[i], stamps[i]]);
      i++;
    }
    expect(i).toBe(3000);
    expect(s.next()).toBe(false);
  });

  it("rejects a bad N", () => {
    expect(() => generateW3(-1)).toThrow(/non-negative integer/);
    expect(() => generateW3(1.5)).toThrow(/non-negative integer/);
  });
});

describe("W3E", () => {
  it("splits stamps into exact sec/nsec and the base maps them back to the W3 stamps", () => {
    const { stamps } = generateW3(2000);
    const { secs, nsecs } = w3eSecNsec(stamps);
    const base = w3eTimeBase();
    for (let i = 0; i < stamps.length; i++) {
      const abs = W3E_OFFSET_NS + BigInt(stamps[i]!);
      expect(BigInt(secs[i]!) * 1_000_000_000n + BigInt(nsecs[i]!)).toBe(abs);
      expect(base.fromSecNsec(secs[i]!, nsecs[i]!)).toBe(stamps[i]);
      expect(base.format(stamps[i]!)).toBe(abs.toString());
    }
  });

  it("output hash with the W3E offset equals the bigint fold of absolute stamps", () => {
    const values = new Float64Array([999311789, 999392809, 999720311, 0, 55556539485030]);
    expect(outputHash(values, 5, W3E_OFFSET_NS)).toBe(
      bigFold(Array.from(values, (v) => W3E_OFFSET_NS + BigInt(v))),
    );
    expect(outputHash(values, 3)).toBe(bigFold(Array.from(values.slice(0, 3), BigInt)));
  });
});
