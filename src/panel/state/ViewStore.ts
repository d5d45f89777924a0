import { RingBuffer } from "./RingBuffer";
import { rawReaches, START_POSES, startAnchor, trackAnchor, type StartAnchor } from "./startAlignment";
import type { DropReason, TransactionJson } from "../../pipeline";
import type { Diagnosis, DropExplanation } from "../../pipeline/diagnosis";
import type { DropRow, EngineDelta, EngineStats, FusedPose, FusionSummary, Pose2D, TupleRow } from "../engine/engineTypes";

/**
 * Caps of the panel's stores (items). With them the panel holds a fixed amount whatever the
 * recording length or live duration: timeline marks 4 × 50k × 8 B = 1.6 MB per input slot
 * (Float64Array, allocated when the slot first appears), tuples 10k × ~250 B, drops 5k × ~150 B,
 * poses 20k × ~60 B for the fused track and for each input's raw odometry, transactions 500 × a
 * few kB: about 20 MB at 8 slots (30 MB if all 8 carry odometry).
 */
export const CAPS = {
  tuples: 10_000,
  drops: 5_000,
  /** Examples kept per drop reason (the first ones seen). */
  dropExamples: 5,
  /** Timeline marks per slot and kind (received, matched, dropped). */
  marks: 50_000,
  poses: 20_000,
  transactions: 500,
} as const;

/** Timeline marks of one input slot. */
export interface SlotMarks {
  readonly received: RingBuffer<number>;
  readonly matched: RingBuffer<number>;
  readonly droppedStamps: RingBuffer<number>;
  readonly droppedCodes: RingBuffer<number>;
}

function slotMarks(): SlotMarks {
  return {
    received: RingBuffer.float64(CAPS.marks),
    matched: RingBuffer.float64(CAPS.marks),
    droppedStamps: RingBuffer.float64(CAPS.marks),
    droppedCodes: RingBuffer.float64(CAPS.marks),
  };
}

/**
 * What the views show, accumulated from engine deltas in bounded ring buffers (see CAPS).
 * `version` increases on every change so React can tell when to redraw.
 */
export class ViewStore {
  public readonly tuples = new RingBuffer<TupleRow>(CAPS.tuples);
  public readonly drops = new RingBuffer<DropRow>(CAPS.drops);
  public readonly dropExamples = new Map<DropReason, DropRow[]>();
  public readonly marks: SlotMarks[] = [];
  /** Raw odometry by the input slot it came in on (a ring of CAPS.poses each, made when the slot's first pose arrives). */
  public readonly rawTracks = new Map<number, RingBuffer<Pose2D>>();
  public readonly fusedPoses = new RingBuffer<FusedPose>(CAPS.poses);
  public readonly transactions = new RingBuffer<TransactionJson>(CAPS.transactions);
  /** The first START_POSES fused poses since the reset (kept when the pose ring wraps). */
  public readonly fusedStarts: FusedPose[] = [];
  /**
   * Where each raw track meets the track it is compared with, by input slot. With fusion, the
   * fused start (see `startAnchor`): chosen again on each delta until every one of `fusedStarts`
   * is in and reached by a pose of that track, then fixed, so that the alignment of the raw track
   * stays put while the rings wrap. Without fusion, the lowest slot's raw track (see
   * `trackAnchor`), fixed once found; that track itself has no anchor.
   */
  public readonly startAnchors = new Map<number, StartAnchor>();
  readonly #fixedAnchors = new Set<number>();
  /** The `referenceSlot` the anchors in `startAnchors` were made against, without fusion (−1 before any). */
  #referenceSlot = -1;
  public stats: EngineStats | undefined;
  /** The fusion run as a whole (counts, drops, final pose, warnings), when fusion is on. */
  public fusion: FusionSummary | undefined;
  public compare: EngineStats | undefined;
  /** Why the comparison policy was refused (its config error), shown instead of its numbers. */
  public compareError: string | undefined;
  public hints: string[] = [];
  /** The last diagnosis asked for (cleared with the results it was made from). */
  public diagnosis: Diagnosis | undefined;
  /** The last drop explanation asked for (slot and relative stamp of the drop; cleared with the results). */
  public explanation: { readonly slot: number; readonly stamp: number; readonly explanation: DropExplanation | undefined } | undefined;
  public baseSec: number | undefined;
  public ingested = 0;
  /** Messages the pipeline refused (drops outside its statistics), see EngineDelta.rejected. */
  public rejected = 0;
  public version = 0;

  /** Adds a delta's rows and replaces the statistics. */
  public apply(delta: EngineDelta): this {
    this.baseSec = delta.baseSec ?? this.baseSec;
    for (const t of delta.tuples) {
      this.tuples.push(t);
    }
    for (const d of delta.drops) {
      this.drops.push(d);
      let ex = this.dropExamples.get(d.reason);
      if (!ex) {
        ex = [];
        this.dropExamples.set(d.reason, ex);
      }
      if (ex.length < CAPS.dropExamples) {
        ex.push(d);
      }
    }
    const { slots, stamps, codes } = delta.marks;
    for (let i = 0; i < codes.length; i++) {
      const slot = slots[i]!;
      while (this.marks.length <= slot) {
        this.marks.push(slotMarks());
      }
      const m = this.marks[slot]!;
      const code = codes[i]!;
      if (code === 0) {
        m.received.push(stamps[i]!);
      } else if (code === 1) {
        m.matched.push(stamps[i]!);
      } else {
        m.droppedStamps.push(stamps[i]!);
        m.droppedCodes.push(code);
      }
    }
    for (const p of delta.rawPoses) {
      let track = this.rawTracks.get(p.slot);
      if (track == undefined) {
        track = new RingBuffer<Pose2D>(CAPS.poses);
        this.rawTracks.set(p.slot, track);
      }
      track.push(p);
    }
    for (const p of delta.fusedPoses) {
      if (this.fusedStarts.length < START_POSES) {
        this.fusedStarts.push(p);
      }
      this.fusedPoses.push(p);
    }
    for (const t of delta.transactions) {
      this.transactions.push(t);
    }
    this.stats = delta.stats;
    this.fusion = delta.fusion;
    this.compare = delta.compare;
    this.compareError = delta.compareError;
    this.hints = delta.hints;
    this.ingested = delta.ingested;
    this.rejected = delta.rejected;
    if (this.fusion == undefined) {
      this.#anchorToFirstTrack();
    } else {
      this.#anchorToFusedStart();
    }
    this.version++;
    return this;
  }

  /**
   * Without fusion, the slot whose raw track the others are aligned to: the lowest slot that
   * carries odometry. Undefined with fusion (the tracks are aligned to the fused start) and before
   * any odometry.
   */
  public get referenceSlot(): number | undefined {
    return this.fusion == undefined && this.rawTracks.size > 0 ? Math.min(...this.rawTracks.keys()) : undefined;
  }

  #anchorToFusedStart(): void {
    // A track that reaches the latest of all START_POSES fused starts reaches every one of them.
    const complete = this.fusedStarts.length === START_POSES;
    const latestStart = Math.max(...this.fusedStarts.map((p) => p.stamp));
    for (const [slot, track] of this.rawTracks) {
      if (this.fusedStarts.length === 0 || this.#fixedAnchors.has(slot)) {
        continue;
      }
      const anchor = startAnchor(track, this.fusedStarts);
      if (anchor) {
        this.startAnchors.set(slot, anchor);
      }
      if (complete && rawReaches(track, latestStart)) {
        this.#fixedAnchors.add(slot);
      }
    }
  }

  #anchorToFirstTrack(): void {
    const first = this.referenceSlot;
    if (first == undefined || this.rawTracks.size < 2) {
      return;
    }
    if (first !== this.#referenceSlot) {
      // A lower slot's first pose came in after others had met: every track now meets that one.
      this.startAnchors.clear();
      this.#referenceSlot = first;
    }
    const reference = this.rawTracks.get(first)!;
    for (const [slot, track] of this.rawTracks) {
      if (slot === first || this.startAnchors.has(slot)) {
        continue;
      }
      const anchor = trackAnchor(track, reference);
      if (anchor) {
        this.startAnchors.set(slot, anchor);
      }
    }
  }

  /** Forgets everything (seek, new config, new analysis). */
  public clear(): this {
    this.diagnosis = undefined;
    this.explanation = undefined;
    this.tuples.clear();
    this.drops.clear();
    this.dropExamples.clear();
    this.marks.length = 0;
    this.rawTracks.clear();
    this.fusedPoses.clear();
    this.fusedStarts.length = 0;
    this.startAnchors.clear();
    this.#fixedAnchors.clear();
    this.#referenceSlot = -1;
    this.transactions.clear();
    this.stats = undefined;
    this.fusion = undefined;
    this.compare = undefined;
    this.compareError = undefined;
    this.hints = [];
    this.baseSec = undefined;
    this.ingested = 0;
    this.rejected = 0;
    this.version++;
    return this;
  }
}

/** Where every received message is: in a set, dropped (with a reason), or still held by the policy. */
export interface Accounting {
  readonly received: number;
  readonly matched: number;
  readonly dropped: number;
  readonly held: number;
}

/** The accounting of a store: received = matched + dropped + held, from the engine's counters. */
export function accounting(store: ViewStore): Accounting {
  const stats = store.stats;
  const matched = (stats?.topics ?? []).reduce((a, t) => a + t.matched, 0);
  const dropped = Object.values(stats?.drops ?? {}).reduce((a, b) => a + b, 0) + store.rejected;
  return { received: store.ingested, matched, dropped, held: Math.max(0, store.ingested - matched - dropped) };
}
