import { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

/**
 * node:http's request and response constructors for the mock's servers, building every request and
 * response with the prototypes the serving express app gives them (`app.request`, `app.response`).
 * Express sets those on each request it handles (`Object.setPrototypeOf` in `app.handle`). Changing
 * the prototype of an object already built is slow in V8 and its effects reach every later property
 * access on the object: measured on this path, it was most of express's cost per request (~13 KB
 * more allocated, ~6.5 KB of it surviving into the old generation, so the old space grew by that much
 * per request until the next full GC; `node bench/memory.mjs`). Built with the app's prototypes
 * already, the call changes nothing. Until `use()`, and for a request that arrived before a reload,
 * they are node's own prototypes and express sets the app's as it always did.
 *
 * node:http's constructors are plain functions (not classes), so one built on them can have its
 * `prototype` replaced; `Reflect.construct` with another `newTarget` would do the same for a class,
 * but V8 builds those objects slowly (slower than letting express set the prototype, measured on
 * Node 20). Should a Node version make them classes, the servers keep node's own constructors.
 *
 * Each constructor inherits from node's (as a subclass's would): V8 sizes a new object's in-object
 * fields from the constructors along that chain, so node's ~35 fields fit in the object. A wrapper
 * alone counted only its own (none): every field went to an out-of-object store regrown as it
 * filled, ~1.3 KB more per response allocated and kept while the stream lives (measured on Node 20).
 */
export class AppPrototypes {
  private readonly request = callable(IncomingMessage) ? requestConstructor() : undefined;
  private readonly response = callable(ServerResponse) ? responseConstructor() : undefined;

  /** For `createServer({ ...serverOptions })`. */
  get serverOptions(): { IncomingMessage?: typeof IncomingMessage; ServerResponse?: typeof ServerResponse } {
    return { IncomingMessage: this.request, ServerResponse: this.response };
  }

  /** Requests and responses built from now on start with `app`'s prototypes. */
  use(app: Express): void {
    if (this.request) this.request.prototype = app.request;
    if (this.response) this.response.prototype = app.response;
  }
}

/** A plain function, which can be called on an object built elsewhere (a class cannot). */
function callable(constructor: unknown): boolean {
  return typeof constructor === "function" && !Function.prototype.toString.call(constructor).startsWith("class");
}

function requestConstructor(): typeof IncomingMessage {
  const base = IncomingMessage as unknown as (this: IncomingMessage, socket: Socket) => void;
  function MockRequest(this: IncomingMessage, socket: Socket): void {
    base.call(this, socket);
  }
  MockRequest.prototype = IncomingMessage.prototype;
  Object.setPrototypeOf(MockRequest, IncomingMessage);
  return MockRequest as unknown as typeof IncomingMessage;
}

function responseConstructor(): typeof ServerResponse {
  const base = ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void;
  function MockResponse(this: ServerResponse, req: IncomingMessage, options?: object): void {
    base.call(this, req, options);
  }
  MockResponse.prototype = ServerResponse.prototype;
  Object.setPrototypeOf(MockResponse, ServerResponse);
  return MockResponse as unknown as typeof ServerResponse;
}
