import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { TransactionsView } from "./TransactionsView";
import { themeFor } from "./theme";
import type { TransactionJson } from "../../pipeline";
import { RingBuffer } from "../state/RingBuffer";

describe("TransactionsView", () => {
  it("names a transaction's and its variables' stamps as seconds.nanoseconds, as the panel's other stamps read", () => {
    const tx: TransactionJson = {
      stamp: "1432235893331706030",
      source: "wheel_odometry",
      involvedStamps: ["1432235893331706030"],
      addedVariables: [
        { uuid: "0b6c4c0e-3a5c-5d1e-9a55-1c2b3d4e5f60", type: "fuse_variables::Position2DStamped", stamp: "1432235893331706030", data: [1, 2] },
        { uuid: "1b6c4c0e-3a5c-5d1e-9a55-1c2b3d4e5f60", type: "fuse_variables::Position2DStamped", data: [3, 4] },
      ],
      addedConstraints: [],
      removedVariables: [],
      removedConstraints: [],
    };
    const transactions = new RingBuffer<TransactionJson>(4).push(tx);
    const html = renderToStaticMarkup(
      createElement(TransactionsView, { transactions, summary: undefined, theme: themeFor("light"), fusionOn: true, formatStamp: String }),
    );
    expect(html).toContain("1432235893.331706030 — wheel_odometry: +2 variables");
    expect(html).toContain("fuse_variables::Position2DStamped</b> @ 1432235893.331706030 =");
    expect(html).toContain("fuse_variables::Position2DStamped</b> @ – =");
    expect(html).not.toContain("1432235893331706030");
  });
});
