import { readHeader } from "../../messages";
import type { Stamp, TimeBase } from "../../time";
import type { SensorMessage } from "../core";

/**
 * A message as the runner delivers it to a sensor model (test helper): its header read on `base`
 * the way the pipeline reads it for every message.
 */
export function sensorMessage(topic: string, message: unknown, receiveTime: Stamp, base: TimeBase): SensorMessage {
  return { topic, message, receiveTime, header: readHeader(message, base) };
}
