import type { Options } from "yargs";

/** Options of `serve`, in one place; each maps onto a MockOptions/ServerOptions field. */
export const serveOptions = {
  // Numbers are read as strings so that a bad value can be quoted back as typed (parse-arguments.ts).
  port: { type: "string", default: 8123, describe: "Port to listen on (0 picks a free port)" },
  host: { type: "string", default: "127.0.0.1", describe: "Interface to bind; 0.0.0.0 exposes the mock to other machines" },
  seed: { type: "string", describe: "Seed for every random choice; also fixes the clock's start (default: random ids, wall-clock time)" },
  fixtures: { type: "array", string: true, describe: "Fixture files or folders (default: the bundled fixtures/); --no-fixtures starts without any (faster, for agent-server-only use)" },
  scenarios: { type: "array", string: true, describe: "Scenario files or folders, JSON or YAML; repeatable (default: the bundled scenarios/)" },
  "api-key": { type: "string", describe: "Require this X-Api-Key on the control plane, agent server and tracing API" },
  "admin-token": { type: "string", describe: "Require Authorization: Bearer <token> on /_mock routes" },
  "tracing-port": { type: "string", describe: "Also serve on this port, as a separate origin for the tracing service" },
  clock: { choices: ["auto", "manual"], default: "auto", describe: "With --seed: auto lets each wait (a scenario's delay_ms) jump the clock ahead by itself; manual keeps a run waiting until the clock is moved (POST /_mock/clock), so a script can watch or cancel it mid-run" },
  lifecycle: { choices: ["immediate", "timed", "manual"], default: "immediate", describe: "How deployment revisions move through their states" },
  "lifecycle-step": { type: "string", default: "30s", describe: "Duration of one lifecycle step in timed mode" },
  "heartbeat-ms": { type: "string", default: 5000, describe: "Interval of : heartbeat comments on idle streams (mock time)" },
  "log-level": { choices: ["silent", "error", "warn", "info", "debug"], default: "info", describe: "info: banner and one line per request; debug: also /_mock requests; warn: problems only" },
  quiet: { type: "boolean", default: false, describe: "Same as --log-level warn (the Listening on line is always printed)" },
  watch: { type: "boolean", default: false, describe: "Reload fixture and scenario files when they change; a bad file keeps the previous set" },
  "exit-with-parent": { type: "boolean", describe: "Exit when the process that started the mock (npm, npx, a test runner, Python) goes away [default: on under npm start / npx]" },
  faults: { type: "array", string: true, describe: "Fault rule files (JSON or YAML, one rule or a list) in force from the start (docs/faults.md); repeatable" },
  "body-limit": { type: "string", default: "1mb", describe: "Largest accepted request body" },
  "allowed-host": { type: "array", string: true, describe: "Also accept this Host header (besides loopback names and the bound address); repeatable; * accepts any (see docs/security.md)" },
  "cors-origin": { type: "array", string: true, describe: "Browser origin allowed cross-origin, admin API included (default: * on the agent server and token URLs, none on /_mock); repeatable" },
  "allow-outbound-host": { type: "array", string: true, describe: "Host MCP discovery may fetch besides loopback and the mock itself; repeatable; * allows any" },
  "show-secrets": { type: "boolean", default: false, describe: "Keep X-Api-Key, Authorization, Cookie and client_secret in clear in /_mock/requests" },
  "headers-timeout-ms": { type: "number", default: 10000, describe: "Wall-clock ms a client has to send its request headers" },
  "request-timeout-ms": { type: "number", default: 30000, describe: "Wall-clock ms a client has to send its whole request (responses and streams are not limited)" },
  "stream-stall-ms": { type: "number", default: 30000, describe: "Wall-clock ms a stream (or a large answer) may stay unread before it is dropped" },
  "check-responses": { type: "boolean", default: false, describe: "Check every answer and stream event against its route's declared schema; a mismatch is warned about and noted in /_mock/requests" },
} satisfies Record<string, Options>;
