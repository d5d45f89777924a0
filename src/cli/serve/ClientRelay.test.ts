import type { ChannelId, ClientChannel, IWebSocket } from "@foxglove/ws-protocol";
import { describe, expect, it } from "vitest";

import { ClientRelay, type RelayServer } from "./ClientRelay";

/** A server that records the channels it serves, and a connection that records being closed. */
function setup(options: { maxChannelsPerClient?: number; maxSchemaChars?: number } = {}) {
  const served = new Map<ChannelId, string>();
  let next = 100;
  const server: RelayServer = {
    addChannel: (c) => {
      served.set(next, c.topic);
      return next++;
    },
    removeChannel: (id) => {
      served.delete(id);
    },
    sendMessage: () => undefined,
    sendStatus: () => undefined,
  };
  const lines: string[] = [];
  const relay = new ClientRelay(server, { reservedTopics: new Set(["/imu/data"]), now: () => 0n, log: (l) => lines.push(l), ...options });
  const connection = {
    closed: 0,
    close(): void {
      connection.closed++;
    },
  } as unknown as IWebSocket & { closed: number };
  const client = { name: "c", connection };
  const advertise = (id: number, topic: string, schema = ""): void => {
    relay.advertise(client, { id, topic, encoding: "json", schemaName: "T", schema } as ClientChannel);
  };
  return { relay, served, lines, connection, client, advertise };
}

describe("ClientRelay", () => {
  it("counts refused advertisements toward the per-client limit, and disconnects past it", () => {
    const { served, connection, advertise, lines } = setup({ maxChannelsPerClient: 3 });
    for (let id = 1; id <= 3; id++) {
      advertise(id, "/imu/data"); // the recording's topic: refused, but held by the protocol library
    }
    expect(connection.closed).toBe(0);
    advertise(4, "/mine");
    expect(connection.closed).toBe(1);
    expect(served.size).toBe(0);
    expect(lines.at(-1)).toMatch(/advertise at most 3 channels at a time; disconnecting it$/);
  });

  it("ignores what a client it disconnected still sends: one line, no relayed message", () => {
    const { relay, connection, advertise, client, lines } = setup({ maxChannelsPerClient: 2 });
    advertise(1, "/mine");
    advertise(2, "/imu/data");
    const before = lines.length;
    // Past the limit: disconnected. The client's next frames were already on their way.
    for (let id = 3; id < 10; id++) {
      advertise(id, `/more${id}`);
    }
    expect(connection.closed).toBe(1);
    expect(lines.slice(before)).toEqual([expect.stringMatching(/advertise at most 2 channels at a time; disconnecting it$/)]);
    expect(relay.message(client, 1, new Uint8Array([1]))).toBe(false);
  });

  it("an unadvertised channel, refused or relayed, frees its place", () => {
    const { relay, served, connection, advertise, client } = setup({ maxChannelsPerClient: 2 });
    advertise(1, "/imu/data");
    advertise(2, "/mine");
    relay.unadvertise(client, 1);
    advertise(3, "/other");
    expect(connection.closed).toBe(0);
    expect([...served.values()]).toEqual(["/mine", "/other"]);
  });

  it("refuses a schema that would take the relayed schemas past their limit, until one goes", () => {
    const { relay, served, advertise, client, lines } = setup({ maxSchemaChars: 100 });
    advertise(1, "/a", "x".repeat(60));
    advertise(2, "/b", "y".repeat(60));
    expect([...served.values()]).toEqual(["/a"]);
    expect(lines.at(-1)).toMatch(/not relaying \/b \[T, json\]: its schema \(60 characters\) would take the relayed schemas past 100 characters$/);
    relay.unadvertise(client, 1);
    advertise(3, "/b", "y".repeat(60));
    expect([...served.values()]).toEqual(["/b"]);
  });

  it("disconnects a client that advertises a schema of more than 1 Mi characters", () => {
    const { served, connection, advertise, lines } = setup();
    advertise(1, "/big", "z".repeat(1024 * 1024 + 1));
    expect(connection.closed).toBe(1);
    expect(served.size).toBe(0);
    expect(lines.at(-1)).toMatch(/its schema has 1048577 characters, more than 1048576; disconnecting it$/);
  });
});
