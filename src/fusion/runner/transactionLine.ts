import type { TimeBase } from "../../time";
import type { Constraint, Matrix, Transaction } from "../core";

/** Keys `constraintToJson` writes itself: an `extra` field with one of these names overrides it in place. */
const STANDARD_CONSTRAINT_KEYS = new Set([
  "uuid",
  "type",
  "source",
  "variables",
  "mean",
  "sqrtInformation",
  "covariance",
  "loss",
]);

/**
 * `JSON.stringify(tx.toJson(base, source))` (the DESIGN §3.4 line), character for character, but
 * written straight into a string: no intermediate JSON objects, nested arrays or repeated BigInt
 * stamp formatting (each distinct stamp of the transaction is formatted once). Constraints whose
 * `extra` fields shadow a standard key fall back to the generic path, so the output is identical
 * in every case.
 */
export function transactionLine(tx: Transaction, base: TimeBase, source: string): string {
  const stamps = new Map<number, string>();
  const fmt = (s: number): string => {
    let out = stamps.get(s);
    if (out == undefined) {
      out = JSON.stringify(base.format(s));
      stamps.set(s, out);
    }
    return out;
  };
  let out = `{"stamp":${fmt(tx.stamp)},"source":${JSON.stringify(source)},"involvedStamps":[`;
  const involved = tx.involvedStamps;
  for (let i = 0; i < involved.length; i++) {
    out += (i === 0 ? "" : ",") + fmt(involved[i]!);
  }
  out += `],"addedVariables":[`;
  let first = true;
  for (const v of tx.addedVariables) {
    out += `${first ? "" : ","}{"uuid":${JSON.stringify(v.uuid)},"type":${JSON.stringify(v.type)},"data":${numbers(v.data)}`;
    if (v.stamp != undefined) {
      out += `,"stamp":${fmt(v.stamp)}`;
      if (v.deviceId != undefined) {
        out += `,"deviceId":${JSON.stringify(v.deviceId)}`;
      }
    }
    if (v.hold) {
      out += `,"hold":true`;
    }
    out += "}";
    first = false;
  }
  out += `],"addedConstraints":[`;
  first = true;
  for (const c of tx.addedConstraints) {
    out += (first ? "" : ",") + constraintLine(c);
    first = false;
  }
  out += `],"removedVariables":${JSON.stringify(tx.removedVariables)},"removedConstraints":${JSON.stringify(
    tx.removedConstraints,
  )}}`;
  return out;
}

function constraintLine(c: Constraint): string {
  const extra = c.extra;
  if (extra != undefined) {
    for (const key of Object.keys(extra)) {
      if (STANDARD_CONSTRAINT_KEYS.has(key)) {
        return JSON.stringify({
          uuid: c.uuid,
          type: c.type,
          source: c.source,
          variables: [...c.variables],
          mean: Array.from(c.mean),
          sqrtInformation: rows(c.sqrtInformation),
          covariance: rows(c.covariance),
          loss: c.loss ? { type: c.loss.type, parameters: { ...c.loss.parameters } } : null,
          ...extra,
        });
      }
    }
  }
  let out = `{"uuid":${JSON.stringify(c.uuid)},"type":${JSON.stringify(c.type)},"source":${JSON.stringify(
    c.source,
  )},"variables":${JSON.stringify(c.variables)},"mean":${numbers(c.mean)},"sqrtInformation":${matrix(
    c.sqrtInformation,
  )},"covariance":${matrix(c.covariance)},"loss":${
    c.loss ? JSON.stringify({ type: c.loss.type, parameters: c.loss.parameters }) : "null"
  }`;
  if (extra != undefined) {
    for (const key of Object.keys(extra)) {
      // JSON.stringify returns undefined (typed as string) for undefined and functions: omitted.
      const value = JSON.stringify(extra[key]) as string | undefined;
      if (value != undefined) {
        out += `,${JSON.stringify(key)}:${value}`;
      }
    }
  }
  return `${out}}`;
}

/** A JSON number as JSON.stringify writes it (non-finite → null). */
function num(v: number): string {
  return Number.isFinite(v) ? String(v) : "null";
}

function numbers(a: ArrayLike<number>, from = 0, to = a.length): string {
  let out = "[";
  for (let i = from; i < to; i++) {
    out += (i === from ? "" : ",") + num(a[i]!);
  }
  return `${out}]`;
}

function matrix(m: Matrix): string {
  let out = "[";
  for (let r = 0; r < m.rows; r++) {
    out += (r === 0 ? "" : ",") + numbers(m.data, r * m.cols, (r + 1) * m.cols);
  }
  return `${out}]`;
}

function rows(m: Matrix): number[][] {
  const out: number[][] = [];
  for (let r = 0; r < m.rows; r++) {
    out.push(Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
  }
  return out;
}
