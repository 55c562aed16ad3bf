import request from "supertest";
import type { Express } from "express";
import { rawText, sseEvents } from "./sse.js";

/** An express app or the base URL of a listening mock: what supertest's `request()` takes. */
export type Target = Express | string;

/** Creates a thread and returns its id. */
export async function newThread(target: Target, body: Record<string, unknown> = {}): Promise<string> {
  const res = await request(target).post("/threads").send(body).expect(200);
  return res.body.thread_id as string;
}

/** Plays a run to its end with `POST /threads/{id}/runs/wait` and returns the response body. */
export async function waitRun(target: Target, threadId: string, body: Record<string, unknown>): Promise<unknown> {
  return (await request(target).post(`/threads/${threadId}/runs/wait`).send(body).expect(200)).body;
}

/** Streams a run and returns the status, headers, raw transcript and its parsed events. */
export async function streamRun(target: Target, threadId: string | null, body: Record<string, unknown>) {
  const path = threadId === null ? "/runs/stream" : `/threads/${threadId}/runs/stream`;
  const res = await request(target).post(path).send(body).buffer(true).parse(rawText);
  const raw = res.body as string;
  return { status: res.status, headers: res.headers, raw, events: res.status === 200 ? sseEvents(raw) : [] };
}
