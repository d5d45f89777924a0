import type { CauseInput, DiagnosisCause } from "./causes";
import { countOf, countText, listText, offsetText, upperFirst } from "./format";
import { runTrace } from "./runTrace";
import { exactSpread } from "./spread";

/** Smallest difference (ns) between one input's latency and the others' that is taken for a clock offset. */
const CLOCK_SKEW_NS = 1_000_000_000;
/**
 * Smallest difference (ns) taken for a clock offset when the input's messages are stamped after
 * they were received (a negative median latency): no transport does that, only a clock ahead.
 */
const CLOCK_AHEAD_NS = 50_000_000;

/**
 * Inputs whose stamps are on a clock that is off from the others' (a median latency, receive −
 * stamp, more than 1 s from that of the input closest to the recorder's clock: no transport is
 * that late or early while another input is not, so those machines' clocks are wrong). An input
 * stamped after it was received is off from 50 ms ahead: a late input may be a slow pipeline (a
 * camera's 300 ms), a message received before it was stamped can only be a clock ahead.
 *
 * When the configured run emits sets, each is checked on the clocks set right: a set whose stamps
 * then lie more than half the smallest offset apart pairs data measured that far apart (its
 * stamps only looked close on the wrong clock), so it is counted as mis-paired, not as a set.
 * The cause costs the sets a run with each such input's stamps moved by its offset gives, less
 * the sets of the configured run that are paired right; it also counts the receive-time stamp
 * source on those inputs as the stopgap. Undefined when no input is off, or setting the clocks
 * right gives no more correctly paired sets.
 */
export function clockOffsetCause(input: CauseInput): DiagnosisCause | undefined {
  const { trace, facts, policy, current } = input;
  const withLatency = facts.topics.filter((t) => t.latency != undefined);
  if (withLatency.length < 2) {
    return undefined;
  }
  // The reference: the input whose stamps sit closest to their receive times.
  const reference = [...withLatency].sort((a, b) => Math.abs(a.latency!.median) - Math.abs(b.latency!.median))[0]!;
  // What moves each input's stamps onto the reference clock (s + shift): negative when they run
  // ahead. Whole milliseconds keep the stamps exact integers of ns.
  const shifts = new Float64Array(trace.slots);
  const off = withLatency
    .map((t) => ({ t, shift: Math.round((t.latency!.median - reference.latency!.median) / 1e6) * 1e6 }))
    .filter(({ t, shift }) => Math.abs(shift) > CLOCK_SKEW_NS || (shift < -CLOCK_AHEAD_NS && t.latency!.median < 0))
    .sort((a, b) => Math.abs(b.shift) - Math.abs(a.shift));
  if (off.length === 0) {
    return undefined;
  }
  for (const { t, shift } of off) {
    shifts[t.slot] = shift;
  }
  const shiftedStamp = (i: number): number => trace.stamp(i) + shifts[trace.slot(i)]!;
  const shifted = runTrace(policy, trace, {
    stampOverride: (i) => {
      const s = trace.stamp(i);
      const shift = shifts[trace.slot(i)]!;
      return shift !== 0 && s === s ? s + shift : undefined;
    },
  });
  // The configured run's sets, on the clocks set right: how far apart the data they pair was taken.
  const misPairedSpans: number[] = [];
  let runs = 1;
  if (current.tuples > 0) {
    runs++;
    const recorded = runTrace(policy, trace, { record: true });
    const members = recorded.members!;
    const threshold = Math.min(...off.map(({ shift }) => Math.abs(shift))) / 2;
    for (let k = 0; k < recorded.tuples; k++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let j = k * trace.slots; j < (k + 1) * trace.slots; j++) {
        const s = shiftedStamp(members[j]!);
        if (s === s) {
          lo = Math.min(lo, s);
          hi = Math.max(hi, s);
        }
      }
      if (hi - lo > threshold) {
        misPairedSpans.push(hi - lo);
      }
    }
  }
  const misPaired = misPairedSpans.length;
  const pairedRight = current.tuples - misPaired;
  const lost = shifted.tuples - pairedRight;
  if (lost <= 0) {
    return undefined;
  }
  // The stopgap: the receive-time stamp source on those inputs, or on every input when receive
  // times are on another clock than all the stamps (they then only meet each other).
  const everyInput = trace.receiveClockOffsetSec !== 0;
  const received = runTrace(policy, trace, {
    // As the receive-time stamp source: every message of those inputs that decoded, whatever its header.
    stampOverride: (i) => ((everyInput || shifts[trace.slot(i)] !== 0) && trace.kind(i) !== "undecodable" ? trace.arrival(i) : undefined),
  });
  runs++;
  const topics = off.map(({ t }) => t.topic);
  const stopgapTopics = everyInput ? facts.topics.map((t) => t.topic) : topics;
  const runsText = (shift: number): string => `${offsetText(Math.abs(shift))} ${shift < 0 ? "ahead of" : "behind"}`;
  const one = off.length === 1;
  // Stamped after they were received: what tells a clock ahead from a slow pipeline.
  const ahead = off.filter(({ t }) => t.latency!.median < 0);
  const aheadText =
    ahead.length === 0
      ? ""
      : ` ${one ? "Its messages are" : listText(ahead.map(({ t }) => `${t.topic}'s messages`)) + " are"} stamped ${listText(ahead.map(({ t }) => offsetText(-t.latency!.median)))} (median) after the recorder received them: a clock ahead does that, a slow pipeline cannot.`;
  const offText = one
    ? `${topics[0]!}'s stamps run ${runsText(off[0]!.shift)} the other inputs' (against their receive times)`
    : `the stamps of ${listText(off.map(({ t, shift }) => `${t.topic} (${offsetText(Math.abs(shift))} ${shift < 0 ? "ahead" : "behind"})`))} are off from ${reference.topic}'s (against their receive times)`;
  const spread = exactSpread(misPairedSpans);
  const what =
    (misPaired === 0
      ? `${upperFirst(offText)}: ${one ? "its machine's clock is off, so its stamps" : "their machines' clocks are off, so their stamps"} ${current.tuples === 0 ? "never" : "seldom"} meet ${one ? "theirs" : "the others'"}.`
      : `${misPaired === current.tuples ? `All ${countOf(misPaired, "set")}` : `${countText(misPaired)} of the ${countOf(current.tuples, "set")}`} the policy emits pair ` +
        `${one ? `${topics[0]!} with data` : `${listText(topics)} with the others' data`} about ${offsetText(spread!.median)} away: ${offText}, ` +
        `a clock offset between ${one ? "that topic's" : "their"} stamps and the others', so the policy matches ${one ? "its" : "their"} messages to the wrong ones.`) + aheadText;
  const result =
    misPaired === 0
      ? `the policy gives ${countOf(shifted.tuples, "set")} (${countText(lost)} lost)`
      : `the policy gives ${countOf(shifted.tuples, "correctly paired set")} instead of ${countText(pairedRight)}`;
  return {
    id: "clock-offset",
    topic: topics[0]!,
    setsLost: lost,
    evidence: {
      offsetNs: -off[0]!.shift,
      offsetsNs: Object.fromEntries(off.map(({ t, shift }) => [t.topic, -shift])),
      referenceTopic: reference.topic,
      misPaired,
      misPairedSpan: spread,
      tuplesShifted: shifted.tuples,
      tuplesReceiveStamps: received.tuples,
    },
    stampFix: { stamps: Object.fromEntries(stopgapTopics.map((t) => [t, "receive" as const])), tuples: received.tuples },
    message:
      `${what} With ${one ? "that clock" : "those clocks"} set right (${one ? "its stamps" : "their stamps"} moved by ${listText(off.map(({ shift }) => offsetText(Math.abs(shift))))}) ` +
      `${result}; sync the clocks (chrony/NTP), or as a stopgap "stamp": "receive" on ${everyInput ? "every input (the receive times are on another clock than all the stamps)" : listText(topics)} gives ${countText(received.tuples)}.` +
      (misPaired === 0 ? "" : ` A wider tolerance would only absorb the offset: it pairs data taken ${offsetText(spread!.median)} apart.`),
    runs,
  };
}
