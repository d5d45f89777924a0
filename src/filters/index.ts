// Public face of the filters layer: the fkie-style graph, Buffer, Combiner, the policies and
// the other filters. Re-exports only.
export { Buffer, type BufferOptions } from "./Buffer";
export { BufferPolicy, isBufferPolicy } from "./BufferPolicy";
export { chain } from "./chain";
export { Combiner, type CombinerOptions } from "./Combiner";
export { Connection } from "./Connection";
export { Divider } from "./Divider";
export {
  DROP_REASONS,
  type DropEvent,
  type DropHandler,
  type DropListener,
  type DropReason,
} from "./DropReason";
export { Filter } from "./Filter";
export {
  FilterBase,
  FilterCycleError,
  dropItemOf,
  type DropItem,
  type SinkLike,
  type SourceLike,
} from "./FilterBase";
export { Selector, type Selected } from "./Selector";
export { Sequencer, type SequencerOptions } from "./Sequencer";
export { SimpleUserFilter, type SimpleUserFilterOptions } from "./SimpleUserFilter";
export { Sink } from "./Sink";
export { Source } from "./Source";
export {
  UserFilter,
  type UserFilterCallback,
  type UserFilterFunction,
  type UserFilterOptions,
} from "./UserFilter";
export { UserSource } from "./UserSource";
export type { CombinerPolicy, PolicyHost } from "./policies/CombinerPolicy";
export * as fkie from "./policies/fkie";
export * as ros from "./policies/ros";
export * as python from "./policies/python";
export { Cache, type CacheOptions } from "./Cache";
export { TimeSequencer, type TimeSequencerOptions } from "./TimeSequencer";
export * as tf from "./tf";
export { TfFilter, type TfFilterOptions } from "./tf";
