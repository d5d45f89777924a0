export { FileByteSource } from "./FileByteSource";
export { FileWritable } from "./FileWritable";
export { openRecordingFile } from "./openRecordingFile";
export { loadSqlJsNode, sqlJsWasmCandidates } from "./sqlJsNode";
export { sharedCrcWorker, ThreadCrcWorker } from "./ThreadCrcWorker";
