import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { DamageLog } from "./DamageLog";
import { McapRecording } from "./McapRecording";
import { MergedRecording } from "./MergedRecording";
import { RecordingError, errorText } from "./RecordingError";
import { SkippedMessages } from "./SkippedMessages";
import { SQLITE_MAGIC, Sqlite3Recording } from "./Sqlite3Recording";
import type { Decompressors } from "./decompress";
import { timeText, toRecordedMessage, type ChannelEntry } from "./recordedMessage";
import { parseRosbag2Metadata, type Rosbag2Metadata } from "./rosbag2Metadata";
import type { SqlJsLoader } from "./sqlJs";
import { databaseWithLog } from "./sqliteWriteAheadLog";
import type { ReadOptions, RecordedMessage, Recording, RecordingInfo } from "./types";
import { decompressZstd } from "./zstdFrame";
import { previewValue } from "../time";

/** The files of a rosbag2 bag folder, however the host reaches them (a directory, a dropped folder). */
export interface BagFolder {
  /** Names the folder in messages (its path). */
  readonly name: string;
  /** The bytes of a file of the folder, by the relative path metadata.yaml gives. */
  open(relativePath: string): Promise<ByteSource>;
  /**
   * The bytes of a file that may be missing (a `.db3`'s write-ahead log), or undefined when it
   * is; a host that cannot tell leaves this out.
   */
  openIfPresent?(relativePath: string): Promise<ByteSource | undefined>;
}

/** What reading a rosbag2 bag needs from the host. */
export interface Rosbag2Options {
  readonly sqlJs: SqlJsLoader;
  readonly decompressors: Decompressors;
  /** The most bytes read for one record of a storage file, a .db3 message row or an MCAP record (`OpenOptions.maxChunkBytes`). */
  readonly maxChunkBytes?: number;
}

const MCAP_MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50];

function startsWith(head: Uint8Array, magic: ArrayLike<number>): boolean {
  if (head.length < magic.length) {
    return false;
  }
  for (let i = 0; i < magic.length; i++) {
    if (head[i] !== magic[i]) {
      return false;
    }
  }
  return true;
}

/**
 * A recording whose message data is compressed one message at a time (rosbag2's compression
 * mode MESSAGE on MCAP storage): reads the part raw, decompresses each message, then decodes.
 */
class MessageDecompressing implements Recording {
  public readonly info: RecordingInfo;
  readonly #inner: Recording;
  readonly #decompressors: Decompressors;
  readonly #name: string;

  public constructor(inner: Recording, decompressors: Decompressors, name: string) {
    this.#inner = inner;
    this.info = inner.info;
    this.#decompressors = decompressors;
    this.#name = name;
  }

  public async *messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    const decode = options.decode === false ? "raw" : "decode";
    const entries = new Map<string, ChannelEntry>();
    const damage = new DamageLog(options.onDamage);
    const undecompressed = new SkippedMessages(`${this.#name}: messages do not decompress`);
    try {
      for await (const m of this.#inner.messages({ ...options, decode: false })) {
        let entry = entries.get(m.topic);
        if (!entry) {
          entry = { channel: m.channel };
          entries.set(m.topic, entry);
        }
        let data: Uint8Array;
        try {
          data = decompressZstd(m.data, this.#decompressors, `a message on ${m.topic} ${receivedAt(this.#name, m)}`);
        } catch (err) {
          // One bad message is one skipped message: the messages after it are read.
          undecompressed.add(errorText(err), m.topic);
          continue;
        }
        yield toRecordedMessage(entry, data, m.receiveTime, decode, 0, m, (x) => receivedAt(this.#name, x));
      }
    } catch (err) {
      // The part's own damage, already reported: it joins this read's.
      if (!(err instanceof RecordingError && err.readPast)) {
        throw err;
      }
      damage.adopt(err.damages);
    }
    undecompressed.report(damage);
    damage.finish();
  }
}

/** "(file, receive time s.nnnnnnnnn)": where a message of a rosbag2 part is. */
function receivedAt(name: string, m: Pick<RecordedMessage, "receiveTime">): string {
  return `(${name}, receive time ${timeText(m.receiveTime)})`;
}

/** What a storage file of a bag may come with besides its folder's metadata.yaml. */
export interface Rosbag2FileExtras {
  /** The `-wal` file beside a `.db3` (see `databaseWithLog`), when there is one. */
  readonly writeAheadLog?: ByteSource;
  /**
   * The file is compressed whole with this format (its name ends in `.zstd`), for a file that no
   * metadata.yaml describes; metadata.yaml's `compression_mode: FILE` says so otherwise.
   */
  readonly fileCompression?: string;
}

/**
 * Opens one rosbag2 storage file (sqlite3 `.db3` or `.mcap`, recognized by its first bytes), after
 * undoing per-file compression, with the bag's per-message compression and distro. A `.db3` is
 * read with its write-ahead log when `extras` has one.
 */
async function openPart(
  source: ByteSource,
  name: string,
  metadata: Rosbag2Metadata | undefined,
  options: Rosbag2Options,
  extras: Rosbag2FileExtras,
): Promise<Recording> {
  let bytes: ByteSource = source;
  const fileCompression = metadata == undefined ? extras.fileCompression : metadata.compressionMode === "file" ? metadata.compressionFormat : undefined;
  // Applied before the format is recognized: a database never checkpointed has its first page,
  // magic included, only in the log.
  const logBytes = fileCompression == undefined ? extras.writeAheadLog : undefined;
  const withLog = logBytes == undefined ? undefined : await databaseWithLog(source, logBytes, `${name}-wal`);
  if (withLog != undefined) {
    bytes = withLog.database;
  }
  if (fileCompression != undefined) {
    if (fileCompression !== "zstd") {
      throw new RecordingError(undefined, `${name}: files are compressed with "${fileCompression}"; Lockstep reads zstd`);
    }
    try {
      // decompressZstd's reason starts with the name it is given: the file's.
      bytes = new ArrayByteSource(decompressZstd(await source.read(0, source.size), options.decompressors, name));
    } catch (err) {
      throw new RecordingError(undefined, errorText(err), { cause: err });
    }
  }
  const head = await bytes.read(0, Math.min(bytes.size, SQLITE_MAGIC.length));
  const messageCompression = metadata?.compressionMode === "message" ? metadata.compressionFormat : "";
  if (startsWith(head, SQLITE_MAGIC)) {
    return await Sqlite3Recording.open(bytes, {
      sqlJs: options.sqlJs,
      decompressors: options.decompressors,
      messageCompression: metadata ? messageCompression : undefined,
      distro: metadata?.distro,
      name,
      maxChunkBytes: options.maxChunkBytes,
      writeAheadLog: withLog?.log,
      storedBytes: source.size + (logBytes?.size ?? 0),
    });
  }
  if (startsWith(head, MCAP_MAGIC)) {
    const mcap = await McapRecording.open(bytes, options.decompressors, { maxChunkBytes: options.maxChunkBytes });
    if (messageCompression === "") {
      return mcap;
    }
    if (messageCompression !== "zstd") {
      throw new RecordingError(undefined, `${name}: messages are compressed with "${messageCompression}"; Lockstep reads zstd`);
    }
    return new MessageDecompressing(mcap, options.decompressors, name);
  }
  throw new RecordingError(undefined, `${name} is neither a rosbag2 sqlite3 file nor an MCAP file (metadata.yaml lists it as storage "${metadata?.storage ?? "?"}")`);
}

/** Topics whose counts a metadata.yaml note names one by one; the rest are counted. */
const LISTED_TOPICS = 5;
/** Longest stretch of a topic name the note quotes (metadata.yaml may hold anything). */
const SHOWN_CHARS = 80;

/**
 * The note for a bag whose metadata.yaml (`where`) counts messages that its storage files, as
 * opened (`info.messageCounts`: the rows of the topics their topics tables list), do not hold:
 * undefined when they agree, or when the files' counts are unknown (a damaged file, which its
 * reads name). A note, not damage: a recorder that did not close its bag (the case the
 * write-ahead log is read for) leaves metadata.yaml as it last wrote it, so the files may hold
 * more; what the files hold but cannot deliver is named as damage by the reads themselves.
 */
function metadataCountsNote(metadata: Rosbag2Metadata, info: RecordingInfo, where: string): string | undefined {
  const held = info.messageCounts;
  if (held == undefined) {
    return undefined;
  }
  const said = new Map<string, number>();
  for (const t of metadata.topics) {
    said.set(t.name, (said.get(t.name) ?? 0) + t.messageCount);
  }
  const differ: string[] = [];
  let differing = 0;
  for (const topic of new Set([...said.keys(), ...held.keys()])) {
    const inMetadata = said.get(topic) ?? 0;
    const inFiles = held.get(topic) ?? 0;
    if (inMetadata !== inFiles) {
      differing += 1;
      if (differ.length < LISTED_TOPICS) {
        differ.push(`${previewValue(topic, SHOWN_CHARS)}: ${inMetadata} in metadata.yaml, ${inFiles} in the files`);
      }
    }
  }
  const total = [...held.values()].reduce((a, b) => a + b, 0);
  if (differing === 0 && metadata.messageCount === total) {
    return undefined;
  }
  const more = differing > differ.length ? `; and ${differing - differ.length} more topics` : "";
  return (
    `${where} counts ${metadata.messageCount} messages where the storage files hold ${total} on the topics their topics tables list` +
    (differing > 0 ? ` (${differ.join("; ")}${more})` : "") +
    ": reads deliver what the files hold and name what they skip; a recorder that did not close the bag leaves metadata.yaml as it last wrote it, otherwise the bag was changed or damaged after it was written"
  );
}

/** `recording` with `note` added to its `info.notes` (itself when there is none). */
function withNote(recording: Recording, note: string | undefined): Recording {
  if (note == undefined) {
    return recording;
  }
  const info: RecordingInfo = { ...recording.info, notes: [...(recording.info.notes ?? []), note] };
  return { info, messages: (options) => recording.messages(options) };
}

/**
 * A rosbag2 bag from its `metadata.yaml` text and its folder: every storage file it lists, read
 * as one recording (split files merged in receive-time order, ties in file order), with the
 * compression metadata.yaml declares (per file or per message, zstd). Works wherever its
 * ByteSources and SQLite engine do (Node, browser, Worker). Message counts of metadata.yaml
 * that the files do not hold are named in `info.notes`. Throws RecordingError naming the
 * file, or Rosbag2MetadataError naming the metadata field.
 */
export async function openRosbag2(metadataText: string, folder: BagFolder, options: Rosbag2Options): Promise<Recording> {
  const metadata = parseRosbag2Metadata(metadataText);
  const parts: Recording[] = [];
  for (const file of metadata.files) {
    const name = `${folder.name}/${file}`;
    const writeAheadLog = file.endsWith(".db3") ? await folder.openIfPresent?.(`${file}-wal`) : undefined;
    parts.push(await openPart(await folder.open(file), name, metadata, options, { writeAheadLog }));
  }
  const recording = parts.length === 1 && parts[0]!.info.format === "rosbag2" ? parts[0]! : new MergedRecording(parts, "rosbag2", metadata.files);
  return withNote(recording, metadataCountsNote(metadata, recording.info, `${folder.name}/metadata.yaml`));
}

/**
 * One storage file of a bag, opened with its folder's metadata.yaml when there is one, and with
 * what `extras` says (its write-ahead log; whole-file compression where no metadata.yaml says).
 * When it is the bag's only file, message counts of metadata.yaml it does not hold are noted.
 */
export async function openRosbag2File(
  source: ByteSource,
  name: string,
  metadataText: string | undefined,
  options: Rosbag2Options,
  extras: Rosbag2FileExtras = {},
): Promise<Recording> {
  const metadata = metadataText == undefined ? undefined : parseRosbag2Metadata(metadataText);
  const recording = await openPart(source, name, metadata, options, extras);
  // Its counts are the bag's: this file's own only when it is the bag's one file.
  return metadata?.files.length === 1 ? withNote(recording, metadataCountsNote(metadata, recording.info, `the metadata.yaml beside ${name}`)) : recording;
}
