import type { DropReason } from "../time/DropReason";

// The vocabulary lives in the bottom layer; the filter graph's public face re-exports it.
export { DROP_REASONS, type DropReason } from "../time/DropReason";

/** One dropped message, as drop listeners receive it. */
export interface DropEvent<T = unknown> {
  /** Input slot (combiner input index) or 0 for single-input filters. */
  readonly slot: number;
  /** Relative stamp (see `time/TimeBase`), or NaN for a message without header. */
  readonly stamp: number;
  readonly reason: DropReason;
  /** The dropped item itself. */
  readonly item: T;
  /** Optional human detail (e.g. "stamp went back 3 ms on slot 1"). */
  readonly detail?: string;
}

/** Receives drop events; must not throw (an exception propagates to whoever fed the filter). */
export type DropListener<T = unknown> = (drop: DropEvent<T>) => void;

/**
 * Receives drops as positional arguments (`FilterBase.onDropArgs`): the fields of a `DropEvent`,
 * without the object, so that reporting a drop allocates nothing. Must not throw.
 */
export type DropHandler<T = unknown> = (
  slot: number,
  stamp: number,
  reason: DropReason,
  item: T,
  detail: string | undefined,
) => void;
