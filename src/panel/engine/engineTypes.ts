/**
 * The data the analysis engine exchanges with the panel (through a Web Worker's postMessage, so
 * everything here is structured-clone friendly plain data). Stamps are exact relative
 * nanoseconds on the engine's time base (`baseSec`, see src/time).
 */
import type { DropReason, FusionDrop, TransactionJson } from "../../pipeline";

/** One message handed to the engine. */
export interface EngineInput {
  /** Panel-assigned sequence number (lets the panel find the message again to republish it). */
  readonly seq: number;
  readonly topic: string;
  readonly schemaName: string;
  readonly receiveTime: { sec: number; nsec: number };
  /** The decoded message (large binary fields may have been stripped, see slimMessage). */
  readonly message: unknown;
}

/** One synchronized set. */
export interface TupleRow {
  /** 0-based emission index since the last reset. */
  readonly index: number;
  /** Header stamp per slot (relative ns). */
  readonly stamps: number[];
  /** Sequence number of each slot's message. */
  readonly seqs: number[];
  /** Newest minus oldest stamp (ns). */
  readonly timespan: number;
  /** Arrival of the message that completed the set minus its newest stamp (ns). */
  readonly lag: number;
}

/** One dropped message. */
export interface DropRow {
  readonly slot: number;
  readonly topic: string;
  /** Relative stamp, NaN without one. */
  readonly stamp: number;
  readonly reason: DropReason;
  readonly detail?: string;
  readonly seq: number;
}

/** Per-topic counters (cumulative since reset). */
export interface TopicCounts {
  readonly topic: string;
  readonly messages: number;
  /** Messages used in sets. */
  readonly matched: number;
  readonly dropped: number;
  /** Message rate (Hz, from arrival times); NaN when unknown. */
  readonly rate: number;
}

/** Summary of a run (cumulative since reset). */
export interface EngineStats {
  readonly policyType: string;
  readonly tuples: number;
  readonly drops: Partial<Record<DropReason, number>>;
  /** ns; undefined before the first tuple. */
  readonly timespan?: { min: number; median: number; p95: number; max: number };
  readonly lag?: { median: number; p95: number; max: number };
  readonly topics: TopicCounts[];
  /** Suggested parameters from the pipeline's statistics (ns / counts; undefined = unknown). */
  readonly suggested?: {
    readonly minDistance: readonly (number | undefined)[];
    readonly maxTimespan: number | undefined;
    readonly queueSize: readonly (number | undefined)[];
    readonly maxQueueSize: number | undefined;
  };
}

/** A 2D pose for the trajectory view. */
export interface Pose2D {
  readonly stamp: number;
  readonly x: number;
  readonly y: number;
  readonly yaw: number;
}

/** A raw odometry pose and the input slot it came in on (each input is a track of its own). */
export interface RawPose extends Pose2D {
  readonly slot: number;
}

/**
 * A fused pose (the fusion runner's Odometry publisher output after a cycle): a 2D pose plus
 * height and attitude (z, roll and pitch are 0 for a 2D fusion config).
 */
export interface FusedPose extends Pose2D {
  readonly z: number;
  readonly roll: number;
  readonly pitch: number;
}

/**
 * The fusion run as a whole since reset, as `lockstep analyze` sums it up (summary.json's
 * `transactions` and `fusion`): counts over every message, not only what the views keep.
 */
export interface FusionSummary {
  /** Transactions so far. */
  readonly transactions: number;
  /** Per sensor, in the order the sensors first sent one (pairs, so the order survives a structured clone). */
  readonly transactionsBySensor: readonly (readonly [string, number])[];
  /** Dropped messages per reason, in the order the reasons first occurred. */
  readonly drops: readonly (readonly [string, number])[];
  /** The newest drops (at most FUSION_DROP_EXAMPLES), oldest first. */
  readonly latestDrops: readonly FusionDrop[];
  /** The fused pose after the latest optimization cycle. */
  readonly finalPose: FusedPose | undefined;
  /** The run's warnings (an IMU mounted rotated, …), as analyze prints them. */
  readonly warnings: readonly string[];
}

/** Timeline marks of one delta: parallel arrays (slot, stamp, code); code 0 = received, 1 = matched, 2 + i = dropped for DROP_REASONS[i]. */
export interface MarkBatch {
  slots: number[];
  stamps: number[];
  codes: number[];
}

/** Everything new since the previous delta. */
export interface EngineDelta {
  /** Time base of the stamps (whole seconds), once the first stamp is known. */
  readonly baseSec?: number;
  readonly tuples: TupleRow[];
  readonly drops: DropRow[];
  readonly marks: MarkBatch;
  readonly rawPoses: RawPose[];
  readonly fusedPoses: FusedPose[];
  /** Transactions as DESIGN §3.4 JSON. */
  readonly transactions: TransactionJson[];
  readonly stats: EngineStats;
  readonly hints: string[];
  /** Same counters for the comparison policy, when one is configured. */
  readonly compare?: EngineStats;
  /** Why the comparison policy was refused (invalid config); `compare` is undefined then. */
  readonly compareError?: string;
  /** The fusion run so far, when the config has a fusion section. */
  readonly fusion?: FusionSummary;
  /** Messages ingested so far (since reset). */
  readonly ingested: number;
  /**
   * Messages the pipeline refused outright (e.g. a stamp it cannot place on its time base), since
   * reset: each is also a drop row; not part of `stats.drops`.
   */
  readonly rejected: number;
}
