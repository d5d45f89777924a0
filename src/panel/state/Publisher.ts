import type { MessageEvent, PanelExtensionContext } from "@foxglove/extension";

import type { MessageCache } from "./MessageCache";
import type { TransactionJson } from "../../pipeline";
import type { Pose2D, TupleRow } from "../engine/engineTypes";

/** The publishing part of the panel context (all optional: feature-detected). */
export type PublishApi = Pick<PanelExtensionContext, "advertise" | "unadvertise" | "publish">;

/** Why publishing is impossible with this context, or undefined when it is possible. */
export function publishUnavailableReason(ctx: PublishApi): string | undefined {
  if (ctx.advertise == undefined || ctx.publish == undefined) {
    return "This data source cannot publish (recordings never can; a Foxglove WebSocket server must declare clientPublish)";
  }
  return undefined;
}

/**
 * Plain-JSON copy of a message for publishing: typed arrays become arrays, bigints numbers, so the
 * host can send it with the `json` encoding. Depth-limited (16); never throws.
 */
export function toPlainJson(value: unknown, depth = 0): unknown {
  if (typeof value === "bigint") {
    return Number(value);
  }
  if (typeof value !== "object" || value == undefined || depth > 16) {
    return value;
  }
  if (ArrayBuffer.isView(value)) {
    return Array.from(value as unknown as ArrayLike<number>);
  }
  if (Array.isArray(value)) {
    return value.map((v) => toPlainJson(v, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = toPlainJson(v, depth + 1);
  }
  return out;
}

/** Output topic of an input topic under `namespace` ("/lockstep" + "/imu/data"). */
export function outputTopic(namespace: string, inputTopic: string): string {
  return `${namespace.replace(/\/+$/, "")}/${inputTopic.replace(/^\/+/, "")}`;
}

/**
 * Republishes synchronized tuples (each message under `<namespace><input topic>` with its
 * original schema name) and, when fusion is on, fused poses (`<namespace>/fused_poses`,
 * foxglove.PosesInFrame) and transaction previews (`<namespace>/transactions`,
 * foxglove.SceneUpdate). Advertises on `start`, unadvertises on `stop`; publishes nothing else.
 */
export class TuplePublisher {
  readonly #api: Required<Pick<PublishApi, "advertise" | "publish">> & Pick<PublishApi, "unadvertise">;
  readonly #namespace: string;
  readonly #inputs: readonly { topic: string; schemaName: string }[];
  readonly #fusion: boolean;
  #advertised: string[] = [];
  /** Messages published so far. */
  public published = 0;

  public constructor(
    api: PublishApi,
    namespace: string,
    inputs: readonly { topic: string; schemaName: string }[],
    options: { readonly fusion: boolean },
  ) {
    if (api.advertise == undefined || api.publish == undefined) {
      throw new Error("TuplePublisher needs a context that can publish");
    }
    this.#api = { advertise: api.advertise.bind(api), publish: api.publish.bind(api), unadvertise: api.unadvertise?.bind(api) };
    this.#namespace = namespace;
    this.#inputs = inputs;
    this.#fusion = options.fusion;
  }

  /** Advertises every output topic. */
  public start(): this {
    for (const input of this.#inputs) {
      const topic = outputTopic(this.#namespace, input.topic);
      this.#api.advertise(topic, input.schemaName);
      this.#advertised.push(topic);
    }
    if (this.#fusion) {
      this.#api.advertise(`${this.#namespace}/fused_poses`, "foxglove.PosesInFrame");
      this.#api.advertise(`${this.#namespace}/transactions`, "foxglove.SceneUpdate");
      this.#advertised.push(`${this.#namespace}/fused_poses`, `${this.#namespace}/transactions`);
    }
    return this;
  }

  /** Republishes each tuple's messages that are still in `cache`. */
  public publishTuples(tuples: readonly TupleRow[], cache: MessageCache): void {
    for (const tuple of tuples) {
      tuple.seqs.forEach((seq, slot) => {
        const input = this.#inputs[slot];
        const ev: MessageEvent | undefined = cache.get(seq);
        if (input && ev) {
          this.#api.publish(outputTopic(this.#namespace, input.topic), toPlainJson(ev.message));
          this.published++;
        }
      });
    }
  }

  /** Publishes the fused trajectory so far as one foxglove.PosesInFrame (frame "odom"). */
  public publishFusedPoses(poses: readonly Pose2D[], baseSec: number, frameId = "odom"): void {
    if (!this.#fusion || poses.length === 0) {
      return;
    }
    const last = poses[poses.length - 1]!;
    const ns = BigInt(baseSec) * 1_000_000_000n + BigInt(last.stamp);
    this.#api.publish(`${this.#namespace}/fused_poses`, {
      timestamp: { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) },
      frame_id: frameId,
      poses: poses.map((p) => ({
        position: { x: p.x, y: p.y, z: 0 },
        orientation: { x: 0, y: 0, z: Math.sin(p.yaw / 2), w: Math.cos(p.yaw / 2) },
      })),
    });
    this.published++;
  }

  /**
   * Publishes a preview of new fusion transactions as one foxglove.SceneUpdate: a sphere at each
   * added 2D position variable (entity "lockstep-transactions", replaced on every update).
   */
  public publishTransactions(transactions: readonly TransactionJson[], frameId = "odom"): void {
    if (!this.#fusion || transactions.length === 0) {
      return;
    }
    const spheres: unknown[] = [];
    let stamp = "0";
    for (const tx of transactions) {
      stamp = tx.stamp;
      for (const v of tx.addedVariables) {
        if (v.type === "fuse_variables::Position2DStamped" && v.data.length >= 2) {
          spheres.push({
            pose: { position: { x: v.data[0], y: v.data[1], z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
            size: { x: 0.15, y: 0.15, z: 0.15 },
            color: { r: 0.15, g: 0.4, b: 0.95, a: 0.8 },
          });
        }
      }
    }
    const ns = /^\d+$/.test(stamp) ? BigInt(stamp) : 0n;
    const timestamp = { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) };
    this.#api.publish(`${this.#namespace}/transactions`, {
      deletions: [],
      entities: [
        {
          timestamp,
          frame_id: frameId,
          id: "lockstep-transactions",
          lifetime: { sec: 0, nsec: 0 },
          frame_locked: false,
          metadata: [{ key: "transactions", value: String(transactions.length) }],
          arrows: [],
          cubes: [],
          spheres,
          cylinders: [],
          lines: [],
          triangles: [],
          texts: [],
          models: [],
        },
      ],
    });
    this.published++;
  }

  /** Stops advertising everything this publisher advertised. */
  public stop(): void {
    for (const topic of this.#advertised) {
      this.#api.unadvertise?.(topic);
    }
    this.#advertised = [];
  }
}
