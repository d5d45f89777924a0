/**
 * Name-based (version 5, SHA-1) UUIDs of RFC 4122: `uuid5(namespace, name)` over raw bytes, the
 * same strings as the `uuid` package's `v5`. Written out because fuse hashes a UUID for every new
 * variable and stamp, and a library call (a hash object, a copy of the input) per UUID costs
 * several times the hash itself. One buffer per instance: not re-entrant across instances'
 * callers, which are synchronous.
 */
export class UuidV5 {
  /** The message, padded to whole 64-byte blocks. */
  #block = new Uint8Array(128);
  readonly #w = new Int32Array(80);
  readonly #h = new Int32Array(5);
  readonly #chars: number[] = new Array<number>(36).fill(0);

  /** The UUID of `name` (its first `length` bytes, default all) in the namespace `ns` (16 bytes). */
  public generate(ns: Uint8Array, name: Uint8Array, length = name.length): string {
    const total = 16 + length;
    const blocks = Math.ceil((total + 9) / 64);
    if (this.#block.length < blocks * 64) {
      this.#block = new Uint8Array(blocks * 64);
    }
    const m = this.#block;
    m.set(ns, 0);
    m.set(length === name.length ? name : name.subarray(0, length), 16);
    m[total] = 0x80;
    m.fill(0, total + 1, blocks * 64);
    // Message length in bits, big-endian, in the last 8 bytes (inputs are far below 2^32 bits).
    const bits = total * 8;
    const end = blocks * 64;
    m[end - 4] = bits >>> 24;
    m[end - 3] = (bits >>> 16) & 0xff;
    m[end - 2] = (bits >>> 8) & 0xff;
    m[end - 1] = bits & 0xff;
    const h = this.#h;
    h[0] = 0x67452301;
    h[1] = 0xefcdab89 | 0;
    h[2] = 0x98badcfe | 0;
    h[3] = 0x10325476;
    h[4] = 0xc3d2e1f0 | 0;
    for (let b = 0; b < blocks; b++) {
      this.#compress(m, b * 64);
    }
    // The 36 characters at once: one flat string instead of a chain of concatenations.
    const chars = this.#chars;
    let at = 0;
    for (let i = 0; i < 16; i++) {
      let byte = (h[i >> 2]! >>> (24 - 8 * (i & 3))) & 0xff;
      if (i === 6) {
        byte = (byte & 0x0f) | 0x50;
      } else if (i === 8) {
        byte = (byte & 0x3f) | 0x80;
      }
      chars[at++] = HEX_DIGITS[byte >>> 4]!;
      chars[at++] = HEX_DIGITS[byte & 0x0f]!;
      if (i === 3 || i === 5 || i === 7 || i === 9) {
        chars[at++] = DASH;
      }
    }
    return String.fromCharCode.apply(null, chars);
  }

  /** One SHA-1 compression of the 64 bytes at `at` into #h. */
  #compress(m: Uint8Array, at: number): void {
    const w = this.#w;
    for (let t = 0; t < 16; t++) {
      const o = at + 4 * t;
      w[t] = (m[o]! << 24) | (m[o + 1]! << 16) | (m[o + 2]! << 8) | m[o + 3]!;
    }
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    const h = this.#h;
    let a = h[0]!;
    let b = h[1]!;
    let c = h[2]!;
    let d = h[3]!;
    let e = h[4]!;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
  }
}

const HEX_DIGITS = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
const DASH = "-".charCodeAt(0);
