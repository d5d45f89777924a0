import type { FusionRunner } from "../src/fusion/runner";
import type { Stamp } from "../src/time";

/**
 * One pass of a decoded stream through a started runner, ending it: the part every fusion runner
 * benchmark times, in Node and in the browser worker alike.
 */
export function feedRunner(runner: FusionRunner, messages: readonly { topic: string; message: unknown; arrival: Stamp }[]): void {
  for (const m of messages) {
    runner.message({ input: { topic: m.topic, message: m.message }, arrival: m.arrival });
  }
  runner.finish();
}
