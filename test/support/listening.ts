import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { Express } from "express";
import { afterAll, afterEach, beforeAll } from "vitest";

/**
 * Serves `app` on a loopback port for the enclosing describe block and returns a getter for its base
 * URL: for files that send thousands of requests (supertest given the app listens once per request).
 */
export function listenDuringTests(app: Express): () => string {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return () => base;
}

/** Keeps the loopback servers a test starts (`track(server)`) and closes them, connections and all, after each test. */
export function closedAfterEach(): (server: Server) => Server {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => {
        s.closeAllConnections();
        return new Promise<void>((resolve) => s.close(() => resolve()));
      }),
    );
  });
  return (server) => {
    servers.push(server);
    return server;
  };
}
