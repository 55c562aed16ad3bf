/**
 * A fetch answer's body as text, or undefined as soon as it passes `limit` bytes: the rest is never
 * read (the stream is cancelled), so a huge or endless answer from a server a client named costs no
 * memory. Used for every answer the control plane reads from such a server.
 */
export async function readAtMost(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks).toString("utf8");
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}
