import { isPlainObject } from "../core/json.js";

/** A JSON-RPC 2.0 request id: what an answer echoes (null when the request had none readable). */
export type RpcId = string | number | null;

/** The standard JSON-RPC 2.0 error codes the A2A and MCP endpoints answer with. */
export const RPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 } as const;

export function rpcResult(id: RpcId, result: unknown) {
  return { jsonrpc: "2.0", id, result };
}

export function rpcError(id: RpcId, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** The id of a request as sent, when it is one JSON-RPC allows (a string or an integer). */
export function rpcId(body: unknown): RpcId {
  const id = isPlainObject(body) ? body.id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

/** Whether an Accept header admits a media type (exactly, by `type/*` or by `*\/*`). */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  const [major] = type.split("/");
  return accept
    .split(",")
    .map((part) => (part.split(";")[0] as string).trim().toLowerCase())
    .some((t) => t === type || t === "*/*" || t === `${major}/*`);
}
