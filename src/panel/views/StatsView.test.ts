import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { StatsView } from "./StatsView";
import { themeFor } from "./theme";
import type { EngineStats } from "../engine/engineTypes";

const STATS: EngineStats = {
  policyType: "fkie/approximate-time",
  tuples: 988,
  drops: {},
  topics: [
    { topic: "/imu/data", messages: 11865, matched: 988, dropped: 10875, rate: 30 },
    { topic: "/a/very/long/namespace/husky_velocity_controller/odom", messages: 3952, matched: 988, dropped: 2963, rate: NaN },
  ],
};

/** The cells of the rendered table, row by row, as [style attribute, inner markup]. */
function cells(html: string): [string, string][][] {
  return [...html.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd](?: style="([^"]*)")?>(.*?)<\/t[hd]>/g)].map((c) => [c[1] ?? "", c[2]!]),
  );
}

describe("StatsView", () => {
  it("keeps counts and rates on one line, right-aligned; only the topic wraps, after a slash", () => {
    const rows = cells(renderToStaticMarkup(createElement(StatsView, { stats: STATS, hints: [], theme: themeFor("light") })));
    expect(rows.map((r) => r.map(([, text]) => text))).toEqual([
      ["slot", "topic", "messages", "matched", "dropped", "rate"],
      ["0", "/<wbr/>imu/<wbr/>data", "11865", "988", "10875", "30.0 Hz"],
      ["1", "/<wbr/>a/<wbr/>very/<wbr/>long/<wbr/>namespace/<wbr/>husky_velocity_controller/<wbr/>odom", "3952", "988", "2963", "–"],
    ]);
    for (const row of rows) {
      row.forEach(([style], column) => {
        if (column === 1) {
          expect(style).not.toContain("nowrap");
        } else {
          expect(style).toContain("white-space:nowrap");
          expect(style).toContain("text-align:right");
        }
      });
    }
  });
});
