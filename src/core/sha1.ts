/**
 * SHA-1 (FIPS 180-4) of a few bytes, for uuid5 (RFC 4122 §4.3). Every run derives a uuid5 from its
 * id: a message of one 64-byte block, which this hashes in about a microsecond, where node:crypto's
 * one-shot hash cost several (a call into C++, and Buffers for its input and digest) — measured as
 * ~3 % of a streamed run's CPU. Checked against node:crypto in test/foundation/random.test.ts.
 *
 * The digest as five 32-bit big-endian words: what uuid5 formats, without going through bytes. It is
 * written into one array kept by this module, as are the message's words: read it before the next
 * call. A run's hash then allocates nothing (three typed arrays each, before).
 */
export function sha1Words(message: Uint8Array, length: number = message.length): Int32Array {
  // The message, a 1 bit, zeros, then its length in bits as a 64-bit big-endian number.
  const blocks = ((length + 8) >>> 6) + 1;
  const words = blocks * 16 <= scratchWords.length ? scratchWords.fill(0, 0, blocks * 16) : new Int32Array(blocks * 16);
  for (let i = 0; i < length; i++) words[i >> 2]! |= (message[i] as number) << (24 - (i & 3) * 8);
  words[length >> 2]! |= 0x80 << (24 - (length & 3) * 8);
  words[blocks * 16 - 1] = length * 8;
  words[blocks * 16 - 2] = Math.floor(length / 0x20000000);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  const w = schedule;
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = words[block * 16 + t] as number;
    for (let t = 16; t < 80; t++) {
      const x = (w[t - 3] as number) ^ (w[t - 8] as number) ^ (w[t - 14] as number) ^ (w[t - 16] as number);
      w[t] = (x << 1) | (x >>> 31);
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
      const next = (((a << 5) | (a >>> 27)) + f + e + k + (w[t] as number)) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  digest[0] = h0;
  digest[1] = h1;
  digest[2] = h2;
  digest[3] = h3;
  digest[4] = h4;
  return digest;
}

/** Room for messages of up to 247 bytes (four blocks): every uuid5 name the mock hashes. */
const scratchWords = new Int32Array(64);
const schedule = new Int32Array(80);
const digest = new Int32Array(5);
