export {
  MAX_RELATIVE_NS,
  parseNanoseconds,
  StampRangeError,
  TimeBase,
  type Duration,
  type Stamp,
} from "./TimeBase";
export { formatDuration, parseDuration, scaleDuration } from "./durations";
export { nsecOf, parseStampJson, type RosTime } from "./stamps";
export { compareRosTimes, nsBetween } from "./rosTimeOrder";
export { nanosecondsText, secNsecText } from "./secNsecText";
export { DROP_REASONS, type DropReason } from "./DropReason";
export { lowerBound, lowerBoundBy, upperBound } from "./sortedSearch";
export { previewValue } from "./previewValue";
export { fileSystemReason } from "./fileSystemReason";
