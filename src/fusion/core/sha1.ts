/** The message schedule (80 words), reused by every call: `sha1` is not re-entrant and never needs to be. */
const W = new Int32Array(80);

/**
 * SHA-1 (FIPS 180-4) of `bytes[0 … length)` into `out[0 … 20)`; returns `out`. Plain JavaScript, so it runs
 * alike in Node, browsers and workers, and it allocates nothing per call: fuse's name-based UUIDs
 * (`uuid5`) hash a 40-byte message per stamped variable, where a platform hash object per UUID
 * (Node's `crypto.createHash`) costs several times the hashing itself.
 */
export function sha1(bytes: Uint8Array, length: number = bytes.length, out: Uint8Array = new Uint8Array(20)): Uint8Array {
  // Message ‖ 0x80 ‖ zeros ‖ 64-bit big-endian bit length, in whole 64-byte blocks.
  const blocks = ((length + 8) >>> 6) + 1;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let block = 0; block < blocks; block++) {
    const base = block * 64;
    for (let t = 0; t < 16; t++) {
      let word = 0;
      for (let k = 0; k < 4; k++) {
        const at = base + 4 * t + k;
        word = (word << 8) | (at < length ? bytes[at]! : at === length ? 0x80 : 0);
      }
      W[t] = word;
    }
    if (block === blocks - 1) {
      // The bit length: below 2^53, split into high and low 32-bit words.
      const bits = length * 8;
      W[14] = Math.floor(bits / 0x100000000) | 0;
      W[15] = bits | 0;
    }
    for (let t = 16; t < 80; t++) {
      const x = W[t - 3]! ^ W[t - 8]! ^ W[t - 14]! ^ W[t - 16]!;
      W[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
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
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + W[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  writeWord(out, 0, h0);
  writeWord(out, 4, h1);
  writeWord(out, 8, h2);
  writeWord(out, 12, h3);
  writeWord(out, 16, h4);
  return out;
}

function writeWord(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = word >>> 16;
  out[at + 2] = word >>> 8;
  out[at + 3] = word;
}
