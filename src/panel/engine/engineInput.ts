import type { Immutable, MessageEvent } from "@foxglove/extension";

import type { EngineInput } from "./engineTypes";
import { slimMessage } from "./slimMessage";

/** A host message event as the engine takes it: numbered `seq`, its message slimmed (see slimMessage). */
export function toEngineInput(seq: number, m: Immutable<MessageEvent>): EngineInput {
  return {
    seq,
    topic: m.topic,
    schemaName: m.schemaName,
    receiveTime: { sec: m.receiveTime.sec, nsec: m.receiveTime.nsec },
    message: slimMessage(m.message),
  };
}
