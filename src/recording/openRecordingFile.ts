import { FileByteSource } from "./FileByteSource";
import { openRecording } from "./openRecording";
import type { Recording } from "./types";

/**
 * Opens a recording file (Node only). The returned `close()` closes the file; call it when done.
 * Throws RecordingError for a file that is not a bag or MCAP, or the file system's error.
 */
export async function openRecordingFile(path: string): Promise<Recording & { close(): Promise<void> }> {
  const source = await FileByteSource.open(path);
  try {
    const recording = await openRecording(source);
    return {
      info: recording.info,
      messages: (options) => recording.messages(options),
      close: async () => {
        await source.close();
      },
    };
  } catch (err) {
    await source.close();
    throw err;
  }
}
