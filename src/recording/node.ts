export { FileByteSource } from "./FileByteSource";
export { FileWritable } from "./FileWritable";
export { openRecordingFile } from "./openRecordingFile";
export { loadSqlJsNode, sqlJsWasmCandidates } from "./sqlJsNode";
export { sharedChunkWorker, ThreadChunkWorker } from "./ThreadChunkWorker";
