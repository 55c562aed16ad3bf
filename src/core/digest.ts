import { createHash } from "node:crypto";

/** The SHA-256 of `data` in hex: what the build's and the disk cache's files are named and found by. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
