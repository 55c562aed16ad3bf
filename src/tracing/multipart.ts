/** One part of a `multipart/form-data` body. */
export interface FormPart {
  name: string;
  contentType: string;
  data: Buffer;
}

/** The boundary of a `multipart/form-data` Content-Type, or undefined when it is not one. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * Splits a whole (already size-limited) body into its parts, as RFC 7578 writes them: `--boundary`,
 * header lines, a blank line, the bytes, CRLF, and `--boundary--` at the end. Undefined when the body
 * is not well formed. Part headers other than Content-Disposition's name and Content-Type are ignored
 * (the Python client adds Content-Length).
 */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) return undefined;
  for (;;) {
    at += delimiter.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return parts; // the closing `--boundary--`
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) return undefined;
    at += 2;
    const headerEnd = body.indexOf("\r\n\r\n", at);
    if (headerEnd < 0) return undefined;
    const headers = body.subarray(at, headerEnd).toString("latin1").split("\r\n");
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) return undefined;
    let name: string | undefined;
    let contentType = "text/plain";
    for (const line of headers) {
      const colon = line.indexOf(":");
      if (colon < 0) return undefined;
      const key = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (key === "content-disposition") name = /(?:^|;)\s*name="([^"]*)"/i.exec(value)?.[1] ?? /(?:^|;)\s*name=([^;\s]+)/i.exec(value)?.[1];
      else if (key === "content-type") contentType = value;
    }
    if (name === undefined) return undefined;
    parts.push({ name: Buffer.from(name, "latin1").toString("utf8"), contentType, data: body.subarray(headerEnd + 4, next) });
    at = next + 2;
  }
}
