import type { EngineInput } from "./engineTypes";
import { stampReaderFor, stampSourceProblem, type StampReader } from "../../pipeline";
import { compareRosTimes, type RosTime } from "../../time";

const HEADER = stampReaderFor("header");

/**
 * Watches the order messages arrive in for one tell-tale of a host's delivery order: two
 * consecutive messages of one topic with the same receive time whose stamps go backwards (each
 * input's stamps as the pipeline reads them, from its stamp source: header stamps by default;
 * an input stamped by receive time never has such a pair).
 * A recorder writes such a pair in publish order, and `lockstep analyze` reads the file in that
 * order; a host that breaks receive-time ties otherwise (Foxglove Studio and Lichtblick's preloaded
 * allFrames do) swaps them: a stamp-ordered policy sees a stamp go backwards and resets, and a
 * policy that takes stamps as they come (ROS's approximate time) can form other sets. The
 * watch never reorders anything (the synchronizers see what the host delivered); it only counts,
 * so the panel can name the cause where it shows those resets. Times are compared to the
 * nanosecond (`compareRosTimes`). Cost: two map lookups per message.
 */
export class TieOrderWatch {
  /** Per input topic, its stamp source's reader; other topics are read by their header stamp. */
  readonly #readers = new Map<string, StampReader>();
  readonly #last = new Map<string, { receive: RosTime; stamp: RosTime | undefined }>();
  /** Per topic: consecutive pairs sharing a receive time, and those whose stamps went backwards. */
  readonly #byTopic = new Map<string, { ties: number; reversed: number }>();

  /** @param inputs the config's inputs: each topic's stamp source (`inputs[].stamp`, default the header). */
  public constructor(inputs: readonly { readonly topic: string; readonly stamp?: string }[] = []) {
    for (const input of inputs) {
      const source = input.stamp ?? "header";
      // A bad source is the pipeline's config error; the watch then reads the header.
      this.#readers.set(input.topic, stampReaderFor(stampSourceProblem(source) == undefined ? source : "header"));
    }
  }

  /**
   * Looks at one delivered message (in delivery order); true when it shares its receive time with
   * the previous message of its topic and has the older stamp (a tie delivered reversed).
   */
  public observe(ev: EngineInput): boolean {
    const receive = ev.receiveTime;
    const read = (this.#readers.get(ev.topic) ?? HEADER)(ev);
    const stamp = typeof read === "string" ? undefined : read;
    const prev = this.#last.get(ev.topic);
    let reversed = false;
    if (prev != undefined && compareRosTimes(prev.receive, receive) === 0) {
      const c = this.#byTopic.get(ev.topic) ?? { ties: 0, reversed: 0 };
      c.ties++;
      if (stamp != undefined && prev.stamp != undefined && compareRosTimes(stamp, prev.stamp) < 0) {
        c.reversed++;
        reversed = true;
      }
      this.#byTopic.set(ev.topic, c);
    }
    this.#last.set(ev.topic, { receive, stamp });
    return reversed;
  }

  /** Forgets everything (a reset of the analysis). */
  public clear(): void {
    this.#last.clear();
    this.#byTopic.clear();
  }

  /** Topics with reversed ties: "<topic> (<reversed> of <ties> pairs)", most reversed first. */
  #reversedText(): string | undefined {
    const parts = [...this.#byTopic.entries()]
      .filter(([, c]) => c.reversed > 0)
      .sort((a, b) => b[1].reversed - a[1].reversed)
      .map(([topic, c]) => `${topic} (${c.reversed} of ${c.ties} pairs sharing a receive time)`);
    return parts.length === 0 ? undefined : parts.join(", ");
  }

  /**
   * The hint for the stats view, undefined while no tie came in with its stamps backwards.
   * `effect`: what the stamps going backwards did, "resets" (the policy reset) or "other-sets"
   * (the policy took them as they came, so its sets can differ from the CLI's).
   */
  public hint(effect: "resets" | "other-sets"): string | undefined {
    const where = this.#reversedText();
    if (where == undefined) {
      return undefined;
    }
    const order = `The host delivered messages with the same receive time in another order than the file: on ${where} the later stamp came first`;
    return effect === "resets"
      ? `${order}, so stamps went backwards and the policy reset (out-of-order-reset drops). This is the host's delivery order, not a clock jump: \`lockstep analyze\` reads the recording in file order and has none of these resets.`
      : `${order}, and the policy took those stamps in that order, so its sets can differ from those of \`lockstep analyze\`, which reads the recording in file order.`;
  }

  /** What to add to an out-of-order-reset drop's detail, undefined while no tie came in reversed. */
  public dropDetail(): string | undefined {
    const where = this.#reversedText();
    return where == undefined
      ? undefined
      : `likely the host's order: messages with the same receive time came in another order than the file on ${where}; \`lockstep analyze\` reads file order`;
  }
}
