import type { PanelExtensionContext, Topic } from "@foxglove/extension";
import { useEffect, type MutableRefObject } from "react";

import type { FrameHandler } from "../state/FrameHandler";
import type { MessageCache } from "../state/MessageCache";
import { publishUnavailableReason, TuplePublisher } from "../state/Publisher";

/** What usePublishing needs. */
export interface PublishingInputs {
  readonly context: PanelExtensionContext;
  /** The user switched publishing on (and the config is valid). */
  readonly wanted: boolean;
  readonly namespace: string;
  readonly inputTopics: readonly string[];
  readonly topics: readonly Topic[] | undefined;
  readonly fusion: boolean;
  readonly handler: FrameHandler;
  readonly cache: MessageCache;
  /** Where the running publisher is kept for the engine's deltas. */
  readonly publisher: MutableRefObject<TuplePublisher | undefined>;
}

/**
 * Advertises the output topics only while publishing is switched on and the data source can
 * publish; unadvertises when switched off, on a namespace change and on unmount. Never touches
 * the analysis: the results stay as they are.
 */
export function usePublishing(inputs: PublishingInputs): { publishing: boolean; reason: string | undefined } {
  const { context, wanted, namespace, inputTopics, topics, fusion, handler, cache, publisher } = inputs;
  const reason = publishUnavailableReason(context);
  const publishing = reason == undefined && wanted;
  const schemaKey = inputTopics.map((t) => topics?.find((x) => x.name === t)?.schemaName ?? "").join("|");
  useEffect(() => {
    if (!publishing) {
      handler.setCache(undefined);
      cache.clear();
      return;
    }
    const schemas = schemaKey.split("|");
    const pub = new TuplePublisher(
      context,
      namespace,
      inputTopics.map((topic, i) => ({ topic, schemaName: schemas[i] ?? "" })),
      { fusion },
    ).start();
    publisher.current = pub;
    handler.setCache(cache);
    return () => {
      pub.stop();
      publisher.current = undefined;
      handler.setCache(undefined);
    };
  }, [publishing, namespace, schemaKey, inputTopics, context, handler, cache, fusion, publisher]);
  return { publishing, reason };
}
