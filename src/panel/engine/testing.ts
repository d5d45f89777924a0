import type { Immutable, MessageEvent } from "@foxglove/extension";

import { AnalysisEngine } from "./AnalysisEngine";
import type { EngineInput } from "./engineTypes";
import { findRangeSubscribe } from "./rangeAnalysis";
import { openRecordingFile } from "../../recording/node";
import { ViewStore } from "../state/ViewStore";

/** Test helper: every message of the recording at `path` as the engine's input, in read order. */
export async function recordingEvents(path: string): Promise<EngineInput[]> {
  const events: EngineInput[] = [];
  const rec = await openRecordingFile(path);
  let seq = 0;
  for await (const m of rec.messages()) {
    events.push({ seq: seq++, topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message });
  }
  await rec.close();
  return events;
}

/**
 * Test helper: a host's range subscription (Foxglove's `unstable_subscribeMessageRange`) over
 * messages already read from a recording: one iterator per topic, in log-time order, in batches of
 * 1000, as the apps hand them to the panel's "Analyze whole recording".
 */
export function hostRangeSubscribe(byTopic: ReadonlyMap<string, Immutable<MessageEvent>[]>): NonNullable<ReturnType<typeof findRangeSubscribe>> {
  const ctx = {
    unstable_subscribeMessageRange: (args: { topic: string; onNewRangeIterator: (it: AsyncIterable<Immutable<MessageEvent[]>>) => Promise<void> }) => {
      const messages = byTopic.get(args.topic) ?? [];
      void args.onNewRangeIterator(
        (async function* () {
          for (let i = 0; i < messages.length; i += 1000) {
            yield messages.slice(i, i + 1000);
          }
        })(),
      );
      return () => undefined;
    },
  };
  return findRangeSubscribe(ctx as never)!;
}

/**
 * Test helper: the panel's stores after `config` ran over `events`, handed to the engine in
 * batches of `batch` with a delta taken after each, as the panel's render loop does.
 */
export function storeAfter(config: unknown, events: readonly EngineInput[], batch: number): ViewStore {
  const engine = new AnalysisEngine(config);
  const store = new ViewStore();
  for (let i = 0; i < events.length; i += batch) {
    engine.ingest(events.slice(i, i + batch));
    store.apply(engine.takeDelta());
  }
  return store;
}
