// Test support (no production file imports it): fusion over recorded sessions, as the CLI runs it.
import { TransformBuffer } from "../../filters/tf";
import { quatFromRpy } from "../../geometry";
import { openRecordingFile } from "../../recording/node";
import { TimeBase } from "../../time";
import type { FusionRunner } from "../runner/FusionRunner";

/** A static transform as the pipeline presets (config/*.json) give it. */
export interface PresetTransform {
  readonly parent: string;
  readonly child: string;
  readonly translation: [number, number, number];
  readonly rpy: [number, number, number];
}

/** A transform buffer holding the presets' static transforms. */
export function staticTransforms(transforms: readonly PresetTransform[]): TransformBuffer {
  const buffer = new TransformBuffer();
  for (const t of transforms) {
    buffer.setStaticTransform(t.parent, t.child, { translation: t.translation, rotation: quatFromRpy(...t.rpy) });
  }
  return buffer;
}

/** How much of a recording `replayRecording` feeds, and with which transforms. */
export interface ReplayOptions {
  readonly transforms?: TransformBuffer;
  /** Ends the replay before the first message for which it is true (arrivals in ns on the time base). */
  readonly stop?: (arrival: number, firstArrival: number) => boolean;
}

/**
 * Feeds a recording's messages on the runner's topics to `runner`, started on a time base at the
 * first message's receive second, each arriving at its receive time; then finishes the runner
 * and closes the recording. Resolves with the runner.
 */
export async function replayRecording(runner: FusionRunner, file: string, options: ReplayOptions = {}): Promise<FusionRunner> {
  const rec = await openRecordingFile(file);
  let base: TimeBase | undefined;
  let first: number | undefined;
  for await (const m of rec.messages({ topics: runner.topics })) {
    if (base == undefined) {
      base = TimeBase.forFirstSecNsec(m.receiveTime.sec, m.receiveTime.nsec);
      runner.start({ timeBase: base, transforms: options.transforms });
    }
    const arrival = base.fromSecNsec(m.receiveTime.sec, m.receiveTime.nsec);
    first ??= arrival;
    if (options.stop?.(arrival, first) === true) {
      break;
    }
    runner.message({ input: m, arrival });
  }
  runner.finish();
  await rec.close();
  return runner;
}

/**
 * The runner's transactions as JSON, each constraint named by the order it was added in (fuse
 * draws constraint UUIDs at random): equal for two runs that add the same constraints.
 */
export function transactionsByOrder(runner: FusionRunner): unknown[] {
  const ordinal = new Map<string, number>();
  return runner.transactionLines.map((line) => {
    const t = JSON.parse(line) as { addedConstraints: { uuid?: string }[]; removedConstraints: unknown[] };
    for (const c of t.addedConstraints) {
      ordinal.set(c.uuid!, ordinal.size);
      delete c.uuid;
    }
    t.removedConstraints = t.removedConstraints.map((u) => ordinal.get(u as string) ?? u);
    return t;
  });
}
