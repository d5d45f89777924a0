/**
 * The candidate closest to `word` (case-insensitive edit distance ≤ 2), if any: the "did you
 * mean" of a misspelt parameter or policy name.
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The recording's topics a config's `topic` most likely meant, in the recording's order: the same
 * name but for a leading slash; else the topics with the same last name (a namespace missing,
 * added or different: "/odom" for "/husky_velocity_controller/odom"); else the one within two
 * edits (a typo). Empty when none is close.
 */
export function topicGuess(topic: string, topics: readonly string[]): string[] {
  const bare = (t: string): string => t.replace(/^\/+/, "");
  const sameButSlash = topics.filter((t) => bare(t) === bare(topic));
  if (sameButSlash.length > 0) {
    return sameButSlash;
  }
  const last = (t: string): string => t.slice(t.lastIndexOf("/") + 1);
  const leaf = last(topic);
  const sameLeaf = leaf === "" ? [] : topics.filter((t) => last(t) === leaf);
  if (sameLeaf.length > 0) {
    return sameLeaf;
  }
  const typo = closestName(topic, topics);
  return typo == undefined ? [] : [typo];
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}
