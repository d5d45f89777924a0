import { describe, expect, it } from "vitest";

import { countOf, listText } from "./format";

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
