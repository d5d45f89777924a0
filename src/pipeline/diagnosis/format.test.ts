import { describe, expect, it } from "vitest";

import { countOf, listText, msRangeText, msText } from "./format";

describe("countOf", () => {
  it("uses the singular for exactly one and the plural otherwise, with grouped digits", () => {
    expect(countOf(1, "set")).toBe("1 set");
    expect(countOf(0, "set")).toBe("0 sets");
    expect(countOf(2, "message")).toBe("2 messages");
    expect(countOf(1271, "set")).toBe("1,271 sets");
  });

  it("takes an irregular plural", () => {
    expect(countOf(1, "index", "indices")).toBe("1 index");
    expect(countOf(3, "index", "indices")).toBe("3 indices");
  });
});

describe("listText", () => {
  it("joins the last two with 'and' and the others with commas", () => {
    expect(listText([])).toBe("");
    expect(listText(["/a"])).toBe("/a");
    expect(listText(["/a", "/b"])).toBe("/a and /b");
    expect(listText(["/a", "/b", "/c"])).toBe("/a, /b and /c");
  });
});

describe("msText", () => {
  it("gives ms with two, one or no decimals by size, then seconds from 10 s", () => {
    expect(msText(0)).toBe("0 ms");
    expect(msText(50_000)).toBe("0.05 ms");
    expect(msText(4_200_000)).toBe("4.2 ms");
    expect(msText(106_000_000)).toBe("106 ms");
    expect(msText(9_999_000_000)).toBe("9999 ms");
    expect(msText(10_000_000_000)).toBe("10.0 s");
    expect(msText(43_150_000_001)).toBe("43.2 s");
    expect(msText(250_000_000_000)).toBe("250 s");
    expect(msText(-43_150_000_001)).toBe("-43.2 s");
    expect(msText(-4_200_000)).toBe("-4.2 ms");
  });
});

describe("msRangeText", () => {
  it("writes a shared unit once and each unit when they differ", () => {
    expect(msRangeText(15_000_000, 17_000_000)).toBe("15–17 ms");
    expect(msRangeText(500_000, 4_200_000)).toBe("0.50–4.2 ms");
    expect(msRangeText(9_999_000_000, 12_000_000_000)).toBe("9999 ms–12.0 s");
    expect(msRangeText(12_000_000_000, 15_000_000_000)).toBe("12.0–15.0 s");
  });
});
