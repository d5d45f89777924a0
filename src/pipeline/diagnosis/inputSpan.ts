import type { StampTrace } from "./StampTrace";
import type { DiagnosisCause } from "./causes";
import type { TraceFacts } from "./facts";
import { countOf, countText, listText, msText } from "./format";

/** Shortest gap (ns) between inputs' first (or last) stamps taken for a late start (or early end). */
const MIN_GAP_NS = 1_000_000_000;
/** …and at least this many of the input's own median stamp periods: shorter gaps are its phase. */
const MIN_PERIODS = 10;

/**
 * The facts that an input starts late or ends early: its first stamp comes well after the
 * others' first stamps (a GPS without a fix yet, a driver started later), or its last stamp well
 * before theirs (a sensor that stopped). Every set needs a message of each input, so the others'
 * messages stamped before it starts (or after it ends) wait for one or are dropped whatever the
 * policy's settings: facts that explain drops and cost no sets. A gap counts when it is at least
 * 1 s and ten of the input's median periods; inputs without a stamp are the silent-input cause's.
 */
export function inputSpanFacts(trace: StampTrace, facts: TraceFacts): DiagnosisCause[] {
  const slots = trace.slots;
  const first = new Float64Array(slots).fill(Infinity);
  const last = new Float64Array(slots).fill(-Infinity);
  for (let i = 0; i < trace.length; i++) {
    const s = trace.stamp(i);
    const k = trace.slot(i);
    if (s === s) {
      first[k] = Math.min(first[k]!, s);
      last[k] = Math.max(last[k]!, s);
    }
  }
  const stamped = [...first.keys()].filter((k) => Number.isFinite(first[k]!));
  if (stamped.length < 2) {
    return [];
  }
  const out: DiagnosisCause[] = [];
  const late = stamped.reduce((a, b) => (first[b]! > first[a]! ? b : a));
  const earliest = stamped.reduce((a, b) => (first[b]! < first[a]! ? b : a));
  const startGap = first[late]! - first[earliest]!;
  if (startGap >= threshold(facts, late)) {
    out.push(...spanNote(trace, "starts-late", late, earliest, startGap, countOthers(trace, late, (s) => s < first[late]!)));
  }
  const early = stamped.reduce((a, b) => (last[b]! < last[a]! ? b : a));
  const latest = stamped.reduce((a, b) => (last[b]! > last[a]! ? b : a));
  const endGap = last[latest]! - last[early]!;
  if (endGap >= threshold(facts, early)) {
    out.push(...spanNote(trace, "ends-early", early, latest, endGap, countOthers(trace, early, (s) => s > last[early]!)));
  }
  return out;
}

/**
 * The note that `slot` starts `gap` after (or ends `gap` before) `reference`, with the other
 * inputs' `messages` (by topic) stamped before its first (or after its last) message; none when
 * there are none.
 */
function spanNote(
  trace: StampTrace,
  id: "starts-late" | "ends-early",
  slot: number,
  reference: number,
  gap: number,
  messages: Record<string, number>,
): DiagnosisCause[] {
  const n = Object.values(messages).reduce((a, b) => a + b, 0);
  if (n === 0) {
    return [];
  }
  const one = n === 1;
  const where =
    id === "starts-late"
      ? `starts ${msText(gap)} after ${trace.topics[reference]!}: ${othersText(messages)} ${one ? "is" : "are"} stamped before its first message, ` +
        `and a set needs one of its messages, so ${one ? "it waits" : "they wait"} for one or ${one ? "is" : "are"} dropped`
      : `ends ${msText(gap)} before ${trace.topics[reference]!}: ${othersText(messages)} ${one ? "is" : "are"} stamped after its last message, ` +
        `and a set needs one of its messages, so ${one ? "it is" : "they are"} held or dropped`;
  return [
    {
      id,
      topic: trace.topics[slot]!,
      setsLost: 0,
      evidence: { gap, reference: trace.topics[reference]!, messages },
      message: `${trace.topics[slot]!} ${where} whatever the settings.`,
    },
  ];
}

function threshold(facts: TraceFacts, slot: number): number {
  return Math.max(MIN_GAP_NS, MIN_PERIODS * (facts.topics[slot]?.period?.median ?? 0));
}

/** Per other slot (by topic), its stamped messages for which `where` holds. */
function countOthers(trace: StampTrace, slot: number, where: (stamp: number) => boolean): Record<string, number> {
  const counts = new Array<number>(trace.slots).fill(0);
  for (let i = 0; i < trace.length; i++) {
    const s = trace.stamp(i);
    const k = trace.slot(i);
    if (k !== slot && s === s && where(s)) {
      counts[k]!++;
    }
  }
  const out: Record<string, number> = {};
  counts.forEach((n, k) => {
    if (k !== slot && n > 0) {
      out[trace.topics[k]!] = (out[trace.topics[k]!] ?? 0) + n;
    }
  });
  return out;
}

/** "1,290 messages of /imu/data and 430 of /odom". */
function othersText(counts: Record<string, number>): string {
  return listText(Object.entries(counts).map(([topic, n], i) => (i === 0 ? `${countOf(n, "message")} of ${topic}` : `${countText(n)} of ${topic}`)));
}
