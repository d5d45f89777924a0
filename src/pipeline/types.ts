import type { TransformBuffer } from "../filters/tf";
import type { MessageHeader, StampProblem } from "../messages";
import type { Stamp, TimeBase } from "../time";
import type { PipelineConfig } from "./config";
import type { DropReason } from "../time/DropReason";

/** A ROS time `{sec, nsec}` (receive times). */
export interface ReceiveTime {
  readonly sec: number;
  readonly nsec: number;
}

/**
 * One message fed to a Pipeline. A recording's `RecordedMessage` fits this shape, as does a
 * Foxglove `MessageEvent` after renaming (the pipeline never imports either).
 */
export interface PipelineInput {
  readonly topic: string;
  readonly receiveTime: ReceiveTime;
  /** The decoded message. */
  readonly message: unknown;
  readonly schemaName?: string;
  /** Set when the message's bytes did not decode (why): it is dropped as `undecodable`. */
  readonly decodeError?: string;
}

/** A message accepted into a combiner slot. */
export interface SlotItem<M extends PipelineInput = PipelineInput> {
  readonly slot: number;
  /** Header stamp (relative to the pipeline's TimeBase; NaN when headerless and the policy allows it). */
  readonly stamp: Stamp;
  /** Receive time on the same base. */
  readonly arrival: Stamp;
  /** Index of the message among everything pushed (0-based). */
  readonly index: number;
  readonly input: M;
}

/** One synchronized set, as observers and outputs see it. */
export interface PipelineTuple<M extends PipelineInput = PipelineInput> {
  /** 0-based, in emission order. */
  readonly index: number;
  /** The items in slot order. */
  readonly items: readonly SlotItem<M>[];
  /** Header stamps in slot order (relative). */
  readonly stamps: readonly Stamp[];
  /** max − min of the stamps (ns). */
  readonly timespan: number;
  /** Newest header stamp seen on any input at emission minus the tuple's newest stamp (ns). */
  readonly lag: number;
  /** Index of the pushed message whose arrival caused the emission. */
  readonly after: number;
}

/** One dropped message. */
export interface PipelineDrop<M extends PipelineInput = PipelineInput> {
  readonly topic: string;
  /** Input slot, or -1 for a message that never reached a slot. */
  readonly slot: number;
  /** Relative header stamp; NaN when the message had none or it was zero/unreadable. */
  readonly stamp: Stamp;
  readonly reason: DropReason;
  readonly detail: string | undefined;
  readonly input: M;
  /** Index of the pushed message that caused the drop. */
  readonly after: number;
}

/**
 * A message an extension dropped (e.g. fusion: a measurement with an invalid covariance, a
 * transaction that arrived too late for the optimizer). `lockstep analyze` writes these to
 * drops.jsonl with `"stage": <extension name>`.
 */
export interface ExtensionDrop {
  readonly topic: string;
  /** Relative header stamp (the pipeline's TimeBase); NaN when unknown. */
  readonly stamp: Stamp;
  readonly reason: DropReason;
  /** Which check failed, in words. */
  readonly detail?: string;
  /** The part of the extension that dropped it (e.g. the fuse sensor model's name). */
  readonly sensor?: string;
}

/** Every message pushed, with what the pipeline made of it (for observers such as fusion). */
export interface PipelineMessageEvent<M extends PipelineInput = PipelineInput> {
  readonly input: M;
  /** Index among everything pushed. */
  readonly index: number;
  /** Slots this topic feeds (empty for other topics). */
  readonly slots: readonly number[];
  /** Relative header stamp, or undefined when it has none / zero stamp / before any time base. */
  readonly stamp: Stamp | undefined;
  /** Relative receive time, or undefined before the time base is known. */
  readonly arrival: Stamp | undefined;
  /**
   * The message's own header (stamp and frame, whatever the input's stamp source), read once
   * here for every extension, or why it has none usable; undefined before the time base is known.
   */
  readonly header: MessageHeader | StampProblem | undefined;
  /**
   * For a message of an input topic whose stamp (from the input's stamp source) the policy does
   * not get: why (`undefined` when `stamp` is set, and for other topics). A `no-header` message
   * still reaches a policy that takes headerless messages, by its arrival.
   */
  readonly unstamped?: UnstampedReason;
}

/** Why an input message has no usable stamp (the pipeline's drop reason for it, or `no-header`). */
export type UnstampedReason = "no-header" | "zero-stamp" | "invalid-stamp" | "undecodable";

/** What an extension gets when the pipeline starts (at the first stamp). */
export interface PipelineContext {
  readonly config: PipelineConfig;
  readonly timeBase: TimeBase;
  /** Fed by /tf, /tf_static and the config's static transforms. */
  readonly transforms: TransformBuffer;
}

/** A file an extension contributes to `analyze --out`. */
export interface ExtensionOutput {
  /** File name inside the output folder (e.g. "transactions.jsonl"). */
  readonly file: string;
  /** JSON Lines content, one string per line (without newline)… */
  readonly lines?: Iterable<string>;
  /** …or raw bytes. */
  readonly bytes?: Uint8Array;
}

/**
 * The extension point of a Pipeline (used by fusion): observers of every message and tuple plus
 * contributions to the results. All methods are optional and synchronous; an exception propagates
 * to whoever pushed the message. Register with `pipeline.use(extension)` before the first push.
 *
 * - `start` runs once, when the first stamp fixes the time base (before that message's `message`).
 * - `message` sees every pushed message, input topic or not, in push order, after the pipeline
 *   handled it (its tuples and drops already delivered).
 * - `tuple` sees every synchronized set, in emission order.
 * - `finish` runs once at the end of the stream (`pipeline.finish()`).
 * - `drops` lists the messages the extension dropped (written to drops.jsonl by analyze).
 * - `summary` returns an object whose keys are merged into summary.json (e.g. `transactions`,
 *   `fusion`); `describe` returns lines for the human summary; `outputs` returns extra files.
 */
/**
 * What a recording says of one of its channels, as config checks before reading use it: the
 * topic, its message type and, where the recording holds it, the type's definition
 * (`schemaEncoding` "ros1msg" / "ros2msg" for ROS `.msg` text).
 */
export interface RecordedChannelFacts {
  readonly topic: string;
  readonly schemaName: string;
  readonly schemaEncoding?: string;
  readonly schemaData?: Uint8Array;
}

export interface PipelineExtension<M extends PipelineInput = PipelineInput> {
  readonly name: string;
  /** Extra topics the extension needs read from a recording (besides the inputs and tf). */
  readonly topics?: readonly string[];
  /**
   * Checks the topics the extension reads against a recording's channels, before any message
   * (where the recording lists them): throws a config error naming the field for a topic whose
   * message type the extension cannot read.
   */
  checkChannels?(channels: readonly RecordedChannelFacts[]): void;
  start?(context: PipelineContext): void;
  message?(event: PipelineMessageEvent<M>): void;
  tuple?(tuple: PipelineTuple<M>): void;
  finish?(): void;
  /**
   * Every message the extension dropped so far, each once, oldest first. Append-only: readers
   * keep the length they have seen and read the new entries after each push and after `finish`.
   */
  readonly drops?: readonly ExtensionDrop[];
  summary?(): Record<string, unknown>;
  describe?(): string[];
  outputs?(): Iterable<ExtensionOutput>;
  /**
   * Hands out the output lines produced since the previous call and forgets them, so a consumer
   * that streams them to disk keeps memory bounded; `outputs()` then holds only the rest.
   */
  drain?(): Iterable<ExtensionOutput>;
}
