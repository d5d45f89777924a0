import type { ChannelId, ClientChannel, IWebSocket } from "@foxglove/ws-protocol";

import { escapeControlCharacters } from "../logText";

/** The parts of FoxgloveServer the relay uses. */
export interface RelayServer {
  addChannel(channel: { topic: string; encoding: string; schemaName: string; schema: string; schemaEncoding?: string }): ChannelId;
  removeChannel(channelId: ChannelId): void;
  sendMessage(channelId: ChannelId, timestamp: bigint, payload: ArrayBufferView<ArrayBuffer>): void;
  sendStatus(status: { level: 0 | 1 | 2; message: string }, connection?: IWebSocket): void;
}

/** Options of a ClientRelay. */
export interface ClientRelayOptions {
  /** Topics the server already serves (the recording's): a client may not advertise them. */
  readonly reservedTopics: ReadonlySet<string>;
  /** Timestamp of a relayed message (the server's current time, ns). */
  readonly now: () => bigint;
  /**
   * Log line sink, with the name of the client whose action the line is about (text from clients
   * is escaped before it gets here).
   */
  readonly log: (line: string, client: string) => void;
  /** Channels one client may advertise at a time. Default 64. */
  readonly maxChannelsPerClient?: number;
  /** Relayed topics at a time, all clients together. Default 1024. */
  readonly maxTopics?: number;
  /**
   * Characters of all relayed schemas together. Default 8 Mi: every client is sent every
   * channel's schema when it connects, in one message that must stay well inside what a client's
   * connection may hold.
   */
  readonly maxSchemaChars?: number;
}

/** One relayed topic: the server channel and the client channels feeding it. */
interface RelayedTopic {
  readonly serverChannel: ChannelId;
  readonly encoding: string;
  readonly schemaName: string;
  readonly schemaChars: number;
  readonly publishers: Set<string>;
}

const MAX_TOPIC_LENGTH = 1024;
/** Characters of one advertised schema (ROS definitions with every dependency are a few KiB). */
const MAX_CHANNEL_SCHEMA_CHARS = 1024 * 1024;
const WARNING = 1;

/** The schema encoding a client channel implies when it names none. */
function defaultSchemaEncoding(encoding: string): string {
  switch (encoding) {
    case "json":
      return "jsonschema";
    case "ros1":
      return "ros1msg";
    case "cdr":
      return "ros2msg";
    default:
      return "";
  }
}

/**
 * Relays what clients publish (Foxglove WebSocket `clientPublish`) as server channels, the way a
 * ROS graph would: a client's advertisement becomes a server channel with the same topic, message
 * encoding, schema name and schema (so the topic shows in every client's topic list), and each
 * message it publishes is sent to that channel's subscribers, stamped with the server's current
 * time. Clients advertising the same topic with the same encoding and schema name share one
 * server channel, which is removed when the last of them unadvertises or disconnects.
 *
 * Refused (with a warning status to that client and a log line, nothing else happens): a topic
 * the recording serves, one advertised with a different encoding or schema name, malformed
 * fields, more than `maxTopics` in all, schemas past `maxSchemaChars` in all; a client
 * advertising more than `maxChannelsPerClient` channels at a time (refused ones count), or a
 * schema of more than 1 Mi characters, is refused and disconnected (so its advertisements cannot
 * grow the server without bound). Messages
 * on a refused or unknown channel are ignored.
 */
export class ClientRelay {
  readonly #server: RelayServer;
  readonly #options: ClientRelayOptions;
  readonly #maxPerClient: number;
  readonly #maxTopics: number;
  readonly #maxSchemaChars: number;
  readonly #topics = new Map<string, RelayedTopic>();
  /** Per client connection: its channel id → relayed topic name. */
  readonly #clients = new Map<IWebSocket, Map<number, string>>();
  /**
   * Per client connection: every channel id it advertises now, relayed or refused (the protocol
   * library keeps them all, so all count toward the per-client limit).
   */
  readonly #advertised = new Map<IWebSocket, Set<number>>();
  /** Characters of the relayed topics' schemas. */
  #schemaChars = 0;
  /**
   * Connections this relay disconnected: their advertisements already in flight are ignored
   * (one "disconnecting it" line per client, not one per advertisement).
   */
  readonly #disconnecting = new WeakSet<IWebSocket>();

  public constructor(server: RelayServer, options: ClientRelayOptions) {
    this.#server = server;
    this.#options = options;
    this.#maxPerClient = options.maxChannelsPerClient ?? 64;
    this.#maxTopics = options.maxTopics ?? 1024;
    this.#maxSchemaChars = options.maxSchemaChars ?? 8 * 1024 * 1024;
  }

  /** Topics relayed now. */
  public get topics(): string[] {
    return [...this.#topics.keys()];
  }

  /** A client advertised `channel`. */
  public advertise(client: { name: string; connection: IWebSocket }, channel: ClientChannel): void {
    if (this.#disconnecting.has(client.connection)) {
      return;
    }
    const refuse = (why: string): void => {
      this.#options.log(`client ${client.name}: not relaying ${describe(channel)}: ${why}`, client.name);
      this.#server.sendStatus({ level: WARNING, message: `lockstep serve does not relay ${describeRaw(channel)}: ${why}` }, client.connection);
    };
    let advertised = this.#advertised.get(client.connection);
    if (advertised == undefined) {
      advertised = new Set();
      this.#advertised.set(client.connection, advertised);
    }
    advertised.add(channel.id);
    if (advertised.size > this.#maxPerClient) {
      // Disconnected too: the protocol library keeps every advertisement of a connection, refused
      // ones included, so a client that keeps advertising would otherwise grow the server without
      // bound.
      refuse(`a client may advertise at most ${this.#maxPerClient} channels at a time; disconnecting it`);
      this.#disconnect(client.connection);
      return;
    }
    const { topic, encoding, schemaName, schema } = channel as Partial<Record<string, unknown>>;
    if (typeof schema === "string" && schema.length > MAX_CHANNEL_SCHEMA_CHARS) {
      // Disconnected too: the protocol library keeps the advertisement, schema and all.
      refuse(`its schema has ${schema.length} characters, more than ${MAX_CHANNEL_SCHEMA_CHARS}; disconnecting it`);
      this.#disconnect(client.connection);
      return;
    }
    if (typeof topic !== "string" || topic === "" || topic.length > MAX_TOPIC_LENGTH || typeof encoding !== "string" || typeof schemaName !== "string" || (schema != undefined && typeof schema !== "string")) {
      refuse(`topic, encoding and schemaName must be strings (topic 1 to ${MAX_TOPIC_LENGTH} characters)`);
      return;
    }
    let mine = this.#clients.get(client.connection);
    if (mine == undefined) {
      mine = new Map();
      this.#clients.set(client.connection, mine);
    }
    if (this.#options.reservedTopics.has(topic)) {
      refuse("the recording already serves this topic");
      return;
    }
    const key = `${client.name}#${channel.id}`;
    const existing = this.#topics.get(topic);
    if (existing != undefined) {
      if (existing.encoding !== encoding || existing.schemaName !== schemaName) {
        refuse(`another client publishes it as [${escapeControlCharacters(existing.schemaName)}, ${escapeControlCharacters(existing.encoding)}]`);
        return;
      }
      existing.publishers.add(key);
    } else {
      if (this.#topics.size >= this.#maxTopics) {
        refuse(`at most ${this.#maxTopics} topics are relayed at a time`);
        return;
      }
      const schemaChars = typeof schema === "string" ? schema.length : 0;
      if (this.#schemaChars + schemaChars > this.#maxSchemaChars) {
        refuse(`its schema (${schemaChars} characters) would take the relayed schemas past ${this.#maxSchemaChars} characters`);
        return;
      }
      this.#schemaChars += schemaChars;
      const serverChannel = this.#server.addChannel({
        topic,
        encoding,
        schemaName,
        schema: typeof schema === "string" ? schema : "",
        schemaEncoding: typeof channel.schemaEncoding === "string" ? channel.schemaEncoding : defaultSchemaEncoding(encoding),
      });
      this.#topics.set(topic, { serverChannel, encoding, schemaName, schemaChars, publishers: new Set([key]) });
    }
    mine.set(channel.id, topic);
    this.#options.log(`client advertise ${describe(channel)} from ${client.name}: relayed`, client.name);
  }

  /** A client stopped advertising its channel `channelId`. */
  public unadvertise(client: { name: string; connection: IWebSocket }, channelId: number): void {
    this.#advertised.get(client.connection)?.delete(channelId);
    const topic = this.#clients.get(client.connection)?.get(channelId);
    if (topic == undefined) {
      return;
    }
    this.#release(client, channelId, topic);
    this.#options.log(`client unadvertise ${escapeControlCharacters(topic)} from ${client.name}`, client.name);
  }

  /** A client published `data` on its channel `channelId`. Returns whether it was relayed. */
  public message(client: { connection: IWebSocket }, channelId: number, data: ArrayBufferView): boolean {
    if (this.#disconnecting.has(client.connection)) {
      return false;
    }
    const topic = this.#clients.get(client.connection)?.get(channelId);
    const relayed = topic == undefined ? undefined : this.#topics.get(topic);
    if (relayed == undefined) {
      return false;
    }
    this.#server.sendMessage(relayed.serverChannel, this.#options.now(), data as ArrayBufferView<ArrayBuffer>);
    return true;
  }

  /** A client disconnected: its channels go. */
  public clientClosed(client: { name: string; connection: IWebSocket }): void {
    this.#advertised.delete(client.connection);
    const mine = this.#clients.get(client.connection);
    if (mine == undefined) {
      return;
    }
    for (const [channelId, topic] of [...mine]) {
      this.#release(client, channelId, topic);
    }
    this.#clients.delete(client.connection);
  }

  #disconnect(connection: IWebSocket): void {
    this.#disconnecting.add(connection);
    connection.close();
  }

  #release(client: { name: string; connection: IWebSocket }, channelId: number, topic: string): void {
    this.#clients.get(client.connection)?.delete(channelId);
    const relayed = this.#topics.get(topic);
    if (relayed == undefined) {
      return;
    }
    relayed.publishers.delete(`${client.name}#${channelId}`);
    if (relayed.publishers.size === 0) {
      this.#topics.delete(topic);
      this.#schemaChars -= relayed.schemaChars;
      this.#server.removeChannel(relayed.serverChannel);
    }
  }
}

/** "<topic> [<schemaName>, <encoding>]", escaped for a log line. */
export function describe(channel: { topic?: unknown; schemaName?: unknown; encoding?: unknown }): string {
  return escapeControlCharacters(describeRaw(channel));
}

function describeRaw(channel: { topic?: unknown; schemaName?: unknown; encoding?: unknown }): string {
  const text = (v: unknown): string => (typeof v === "string" ? v : ((JSON.stringify(v) as string | undefined) ?? "undefined")).slice(0, 200);
  return `${text(channel.topic)} [${text(channel.schemaName)}, ${text(channel.encoding)}]`;
}
