import express, { type Express } from "express";
import { MockContext } from "./context.js";
import { errorHandler } from "./http/fallback.js";
import { readFixtures } from "./store/fixtures.js";
import type { MockOptions } from "./options.js";
import { controlPlaneControl, controlPlaneModule, controlPlaneState } from "./control-plane/index.js";
import { McpFixtureServers } from "./control-plane/mcp-fixture-servers.js";
import { fixtureServersModule } from "./control-plane/mcp-fixture-routes.js";
import { agentServer, agentServerModule } from "./agent-server/index.js";
import { tracingControl, tracingModule, tracingPort } from "./tracing/index.js";
import { Registrar } from "./http/registrar.js";
import { readFaultRules } from "./http/fault-rules-file.js";
import { adminDocsRoute, apiDocsModule } from "./http/api-docs-module.js";
import { adminModule } from "./admin/index.js";
import { MockControl, type ServicePorts } from "./mock-control.js";
import { InspectorData } from "./inspector-data.js";
import { wireLiveChanges } from "./live-changes.js";
import { inspectorHome, inspectorRoutes } from "./admin/inspector-routes.js";
import { homePage } from "./http/home-page.js";
import { requestLog } from "./http/request-log.js";
import { adminGuard } from "./http/admin-guard.js";
import { originCheck } from "./http/origin-check.js";
import { adminErrors } from "./admin/errors.js";

/**
 * Builds the mock as an express app without listening (for supertest, or to mount in your own server).
 * Fixtures and scenarios are read synchronously here; a bad file throws a LoadError naming file,
 * JSON pointer and reason. The app's control surface (feedback, requests, reset…) is `mockOf(app)`.
 *
 * @example
 * const app = createApp({ seed: 42 });
 * await request(app).get("/v2/auth/providers").expect(200);
 * mockOf(app).reset();
 */
export function createApp(options: MockOptions = {}): Express {
  const ctx = new MockContext(options);
  const fixtures = readFixtures(options.fixtures);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  const registrar = new Registrar(ctx);
  const mcpServers = new McpFixtureServers(ctx);
  const controlPlane = controlPlaneState(ctx, mcpServers);
  const controlPlaneControls = controlPlaneControl(ctx, controlPlane.deployments);
  // The agent server reaches the tracing service only through its port (feedback URLs, run traces).
  const agent = agentServer(ctx, options.scenarios ?? [], tracingPort(ctx, controlPlaneControls.deploymentName));
  // What MockControl, the change feed and the inspector use of the services: their ports, nothing else.
  const services: ServicePorts = { agentServer: agent.control, controlPlane: controlPlaneControls, tracing: tracingControl(ctx) };
  // The change feed (`GET /_mock/events`, the inspector, thread join streams) follows the state from here on.
  wireLiveChanges(ctx, services);
  const control = new MockControl(ctx, services, fixtures.documents.map((d) => d.file));
  registrar.add(adminModule(ctx, control, [adminDocsRoute(registrar), ...inspectorRoutes(ctx, new InspectorData(ctx, services))]));
  registrar.add(apiDocsModule(registrar));
  registrar.add(tracingModule(ctx));
  const controlPlaneRoutes = controlPlaneModule(ctx, fixtures, controlPlane);
  registrar.add(controlPlaneRoutes);
  registrar.add(fixtureServersModule(mcpServers));
  const agentModule = agentServerModule(ctx, agent, fixtures);
  registrar.add(agentModule);
  // The seed phase, in order: tenants → integrations → providers → fixture servers → deployments
  // (the control plane's steps), then graphs → assistants (the agent server's).
  controlPlaneRoutes.seed?.();
  agentModule.seed?.();
  fixtures.finish();
  for (const rule of readFaultRules(options.faults ?? [])) ctx.faults.add(rule);
  // One pipeline for all four services: they live under disjoint paths (DESIGN §1).
  if (options.onRequest) app.use(requestLog(options.onRequest));
  app.use(homePage(inspectorHome(), ctx.clock));
  app.use(ctx.journal.middleware());
  // Before every /_mock route: no other web page may drive the admin API (docs/security.md).
  app.use(adminGuard({ origins: options.corsOrigins, publicUrl: options.publicUrl, errors: adminErrors }));
  // No other web page may change the services' state either (docs/security.md).
  app.use(originCheck({ origins: options.corsOrigins, ownUrls: [options.publicUrl, options.tracingUrl] }));
  // The routes' stages, 404 and 405 included (src/http/stages/).
  registrar.mountOn(app);
  app.use(errorHandler(ctx.clock));
  ctx.markStarted();
  app.locals.mock = control;
  return app;
}

/** The control surface of an app made by createApp(). */
export function mockOf(app: Express): MockControl {
  const control = app.locals.mock as MockControl | undefined;
  if (!control) throw new TypeError("mockOf() takes an app made by createApp()");
  return control;
}
