import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

import { FileByteSource } from "./FileByteSource";
import { MergedRecording } from "./MergedRecording";
import { RecordingError } from "./RecordingError";
import { openRosbag2, openRosbag2File, type BagFolder } from "./Rosbag2Recording";
import { sharedChunkWorker } from "./ThreadChunkWorker";
import { loadDecompressors, type OpenOptions } from "./decompress";
import { openRecording } from "./openRecording";
import { parseRosbag2Metadata } from "./rosbag2Metadata";
import { loadSqlJsNode } from "./sqlJsNode";
import type { Recording } from "./types";
import { fileSystemReason } from "../time";

const METADATA = "metadata.yaml";

/** A storage file's name: `.db3` or `.mcap`, compressed whole (`.zstd`) or not. */
const STORAGE_FILE = /\.(db3|mcap)(\.zstd)?$/;

/**
 * Storage files of a folder without metadata.yaml, in split order (`_0`, `_1`, … `_10`): parts
 * rosbag2 compressed whole when it closed them (`.db3.zstd`) with the part it was writing.
 */
async function storageFiles(folder: string): Promise<string[]> {
  const names = (await readdir(folder)).filter((n) => STORAGE_FILE.test(n));
  const index = (n: string): number => Number(/_(\d+)\.(db3|mcap)(\.zstd)?$/.exec(n)?.[1] ?? -1);
  return names.sort((a, b) => (index(a) !== index(b) ? index(a) - index(b) : a < b ? -1 : a > b ? 1 : 0));
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Opens a recording (Node only): a ROS 1 bag or MCAP file, a rosbag2 bag folder (or its
 * `metadata.yaml`), or one storage file of a bag (`.db3` or `.mcap`; read with its folder's
 * metadata.yaml when that lists it, for compression and distro). A folder without metadata.yaml
 * is read from its `.db3`/`.mcap` files in split order. The returned `close()` closes every file;
 * call it when done. No chunk or record larger than `limits.maxChunkBytes` is read or
 * decompressed, in whichever of its files (see `OpenOptions`). Throws
 * RecordingError for anything that is not a recording, or the file system's error.
 */
export async function openRecordingFile(path: string, limits: OpenOptions = {}): Promise<Recording & { close(): Promise<void> }> {
  const sources: FileByteSource[] = [];
  const closeAll = async (): Promise<void> => {
    for (const s of sources.splice(0)) {
      await s.close();
    }
  };
  const openSource = async (p: string): Promise<FileByteSource> => {
    const s = await FileByteSource.open(p);
    sources.push(s);
    return s;
  };
  // A file that may be missing: undefined when it is, the file system's error otherwise.
  const openIfPresent = async (p: string): Promise<FileByteSource | undefined> => {
    try {
      return await openSource(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        return undefined;
      }
      throw new RecordingError(undefined, `${p} cannot be opened: ${fileSystemReason(err)}`, { cause: err });
    }
  };
  const options = { sqlJs: loadSqlJsNode, decompressors: await loadDecompressors(limits), maxChunkBytes: limits.maxChunkBytes };
  try {
    let isFolder: boolean;
    try {
      isFolder = (await stat(path)).isDirectory();
    } catch (err) {
      throw new RecordingError(undefined, fileSystemReason(err), { cause: err });
    }
    const folderPath = isFolder ? path : basename(path) === METADATA ? dirname(path) : undefined;
    let recording: Recording;
    if (folderPath != undefined) {
      const folder: BagFolder = {
        name: folderPath,
        open: async (rel) => {
          try {
            return await openSource(join(folderPath, rel));
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            throw new RecordingError(undefined, `${folderPath}: its file ${rel} cannot be opened (${code === "ENOENT" ? "it does not exist" : fileSystemReason(err)}); a split bag needs every file its metadata.yaml lists`, { cause: err });
          }
        },
        openIfPresent: async (rel) => await openIfPresent(join(folderPath, rel)),
      };
      const metadata = await readText(join(folderPath, METADATA));
      if (metadata != undefined) {
        recording = await openRosbag2(metadata, folder, options);
      } else {
        const files = await storageFiles(folderPath);
        if (files.length === 0) {
          throw new RecordingError(undefined, `${folderPath} is a folder but has no ${METADATA} and no .db3 or .mcap file (a rosbag2 bag folder has them; give a .bag, .mcap or .db3 file or a bag folder)`);
        }
        const parts: Recording[] = [];
        for (const f of files) {
          const writeAheadLog = f.endsWith(".db3") ? await openIfPresent(join(folderPath, `${f}-wal`)) : undefined;
          const fileCompression = f.endsWith(".zstd") ? "zstd" : undefined;
          parts.push(await openRosbag2File(await folder.open(f), join(folderPath, f), undefined, options, { writeAheadLog, fileCompression }));
        }
        recording = parts.length === 1 ? parts[0]! : new MergedRecording(parts, "rosbag2", files);
      }
    } else {
      let source: FileByteSource;
      try {
        source = await openSource(path);
      } catch (err) {
        throw new RecordingError(undefined, fileSystemReason(err), { cause: err });
      }
      const metadata = await readText(join(dirname(path), METADATA));
      let listed = false;
      if (metadata != undefined) {
        try {
          listed = parseRosbag2Metadata(metadata).files.includes(basename(path));
        } catch {
          // A metadata.yaml that is not a bag's does not concern this file.
        }
      }
      // A .db3 with a write-ahead log beside it (a recorder that did not close it) is read with
      // it; a part compressed whole that no metadata.yaml lists is known by its name.
      const writeAheadLog = path.endsWith(".db3") ? await openIfPresent(`${path}-wal`) : undefined;
      const fileCompression = !listed && STORAGE_FILE.test(path) && path.endsWith(".zstd") ? "zstd" : undefined;
      recording =
        listed || writeAheadLog != undefined || fileCompression != undefined
          ? await openRosbag2File(source, path, listed ? metadata : undefined, options, { writeAheadLog, fileCompression })
          : await openRecording(source, { ...limits, sqlJs: loadSqlJsNode, chunkWorker: sharedChunkWorker() });
    }
    return {
      info: recording.info,
      messages: (o) => recording.messages(o),
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
