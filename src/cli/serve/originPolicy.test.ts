import { describe, expect, it } from "vitest";

import { OriginPolicy } from "./originPolicy";

describe("OriginPolicy", () => {
  it("admits the apps, loopback, file:// and no origin; refuses other sites and opaque origins", () => {
    const p = new OriginPolicy();
    for (const ok of [undefined, "", "https://app.foxglove.dev", "https://studio.foxglove.dev/", "file://", "FILE://", "http://localhost:8080", "http://127.0.0.1", "https://127.1.2.3:9", "http://[::1]:3000", "http://app.localhost:5173"]) {
      expect({ origin: ok, allowed: p.allows(ok) }).toEqual({ origin: ok, allowed: true });
    }
    for (const bad of ["null", "https://evil.example.com", "http://localhost.evil.com", "http://127.0.0.1.evil.com", "https://app.foxglove.dev.evil.com", "ws://localhost", "chrome-extension://abc", "garbage"]) {
      expect({ origin: bad, allowed: p.allows(bad) }).toEqual({ origin: bad, allowed: false });
    }
  });

  it("admits the extra origins exactly", () => {
    const p = new OriginPolicy(["https://viz.example.org/", "null"]);
    expect(p.allows("https://viz.example.org")).toBe(true);
    expect(p.allows("null")).toBe(true);
    expect(p.allows("https://viz.example.org.evil.com")).toBe(false);
    expect(p.allows("http://viz.example.org")).toBe(false);
  });
});
