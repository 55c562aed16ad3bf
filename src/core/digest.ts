import { hash } from "node:crypto";

/**
 * The SHA-256 of `data` in hex: what the build's and the disk cache's files are named and found by.
 * crypto.hash, not createHash: a start takes ~90 digests, and each Hash object fetched its algorithm
 * from OpenSSL anew (2–4× the cost of a small digest).
 */
export function sha256Hex(data: string | Uint8Array): string {
  return hash("sha256", data, "hex");
}
