// The inspector page (docs/inspector.md). Plain script, no build step: it reads the /_mock routes once,
// then follows GET /_mock/events. Everything shown is client data, so the DOM is built with text nodes
// only (never innerHTML).
"use strict";

const API = "/_mock";
const state = {
  runs: new Map(), // run_id -> admin run
  events: new Map(), // run_id -> timeline entries (only for runs whose events were loaded or streamed)
  eventCounts: new Map(), // run_id -> number of events seen
  feedback: [],
  traces: new Map(), // captured run id -> run (GET /_mock/traces)
  tracesDropped: 0,
  requests: [],
  scenarios: [],
  deployments: { items: [], lifecycle: "immediate", lifecycle_step_ms: 30000 },
  routes: [],
  clock: null,
  options: null,
  fresh: new Set(), // keys of rows to flash once
};
const open = new Set(); // keys of <details> the user opened, kept across re-renders

// ---------- small helpers ----------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat(Infinity)) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}
const $ = (id) => document.getElementById(id);
// A v7 UUID (runs) starts with its timestamp, the same for runs made together: show its random end instead.
const short = (id) => (!id ? "—" : String(id)[14] === "7" ? `…${String(id).slice(-8)}` : String(id).slice(0, 8));
const pretty = (v) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
const ms = (iso) => (iso ? Date.parse(iso) : NaN);
function time(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toISOString().slice(11, 23);
}
function fullTime(iso) {
  const d = new Date(iso);
  return isNaN(d) ? String(iso) : d.toISOString().replace("T", " ").replace("Z", " UTC");
}
function duration(a, b) {
  return elapsed(ms(b) - ms(a));
}
function elapsed(d) {
  if (!(d >= 0)) return "—";
  return d < 1000 ? `${d} ms` : d < 60000 ? `${(d / 1000).toFixed(d < 10000 ? 2 : 1)} s` : `${Math.floor(d / 60000)}m ${Math.round((d % 60000) / 1000)}s`;
}
const offset = (n) => `+${(n / 1000).toFixed(3)} s`;
function bytes(n) {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}
function badge(value, cls) {
  return h("span", { class: `badge s-${cls ?? value}` }, value);
}
function runLink(id) {
  return id ? h("a", { href: `#/runs/${encodeURIComponent(id)}`, class: "mono", title: id }, short(id)) : "—";
}
/** A <details> whose open state survives re-rendering. */
function details(key, summary, ...body) {
  const d = h("details", { "data-key": key, open: open.has(key) }, h("summary", {}, summary), ...body);
  d.addEventListener("toggle", () => (d.open ? open.add(key) : open.delete(key)));
  return d;
}
function table(headers, rows, empty) {
  if (!rows.length) return h("p", { class: "empty" }, empty);
  return h("table", {}, h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col", class: x.cls }, x.label ?? x)))), h("tbody", {}, rows));
}
/** Replaces a region's content, keeping the focused control focused when it is re-drawn. */
function fill(region, content) {
  const active = document.activeElement;
  const key = active && region.contains(active) ? active.getAttribute("data-key") || active.getAttribute("href") : null;
  region.replaceChildren(content);
  if (key) {
    const again = [...region.querySelectorAll("[data-key],[href]")].find((el) => (el.getAttribute("data-key") || el.getAttribute("href")) === key);
    again?.focus({ preventScroll: true });
  }
}
function flash(row, key) {
  if (state.fresh.delete(key)) row.classList.add("fresh");
  return row;
}

async function api(method, path, body, type = "application/json") {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = type;
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(API + path, init);
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const err = new Error(typeof data?.detail === "string" ? data.detail : `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.detail = data?.detail;
    throw err;
  }
  return data;
}

// ---------- loading ----------

async function loadAll() {
  const [runs, feedback, traces, requests, scenarios, deployments, clock, options, routes] = await Promise.all([
    api("GET", "/runs"),
    api("GET", "/feedback"),
    api("GET", "/traces"),
    api("GET", "/requests"),
    api("GET", "/scenarios"),
    api("GET", "/deployments"),
    api("GET", "/clock"),
    api("GET", "/options"),
    api("GET", "/routes"),
  ]);
  state.runs = new Map(runs.items.map((r) => [r.run_id, r]));
  state.events.clear();
  state.eventCounts.clear();
  state.feedback = feedback.items;
  setTraces(traces);
  state.requests = requests.items;
  state.scenarios = scenarios.items;
  state.deployments = deployments;
  state.clock = clock;
  state.options = options;
  state.routes = routes.items.map((r) => ({ ...r, re: new RegExp(`^${r.path.split("/").map((s) => (s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}/?$`) }));
  const current = route();
  if (current.section === "run") await loadRunEvents(current.id);
  renderAll();
}

async function loadRunEvents(runId) {
  if (!runId || !state.runs.has(runId)) return;
  // Events streamed while the read is under way land in this list; the read's own are merged in.
  const live = [];
  state.events.set(runId, live);
  const data = await api("GET", `/runs/${encodeURIComponent(runId)}/events`).catch(() => ({ items: [] }));
  const seen = new Set(data.items.map((x) => x.id));
  const merged = [...data.items, ...live.filter((x) => !seen.has(x.id))].sort((a, b) => a.id - b.id);
  state.events.set(runId, merged);
  state.eventCounts.set(runId, merged.length);
}

let reloadingDeployments;
function reloadDeployments() {
  // Timed lifecycles change many revisions per clock move: one read per burst is enough.
  clearTimeout(reloadingDeployments);
  reloadingDeployments = setTimeout(async () => {
    state.deployments = await api("GET", "/deployments").catch(() => state.deployments);
    schedule("deployments");
  }, 40);
}

function setTraces(list) {
  state.traces = new Map(list.items.map((r) => [r.id, r]));
  state.tracesDropped = list.dropped;
}

// The feed names the trace that changed; its runs are read per trace, once per burst, in order.
const tracesToRead = new Set();
let readingTraces;
let tracesRead = Promise.resolve();
let tracesGeneration = 0; // a clear makes reads started before it stale
function reloadTrace(traceId) {
  tracesToRead.add(traceId);
  clearTimeout(readingTraces);
  readingTraces = setTimeout(() => {
    const ids = [...tracesToRead];
    tracesToRead.clear();
    const generation = tracesGeneration;
    tracesRead = tracesRead.then(async () => {
      // Many traces at once (a suite tracing in bulk): one read of them all beats one per trace.
      if (ids.length > 20) {
        const all = await api("GET", "/traces").catch(() => null);
        if (all && generation === tracesGeneration) setTraces(all);
        ids.length = 0;
      }
      for (const id of ids) {
        const data = await api("GET", `/traces?trace_id=${encodeURIComponent(id)}`).catch(() => null);
        if (!data || generation !== tracesGeneration) return;
        if (data.dropped !== state.tracesDropped) {
          // The cap dropped old runs, of any trace: read them all again.
          const all = await api("GET", "/traces").catch(() => null);
          if (all && generation === tracesGeneration) setTraces(all);
          break;
        }
        for (const [runId, r] of state.traces) if (r.trace_id === id) state.traces.delete(runId);
        for (const r of data.items) state.traces.set(r.id, r);
      }
      schedule("traces");
    });
  }, 40);
}

// ---------- live updates ----------

let source;
function connect() {
  source = new EventSource(`${API}/events`);
  source.addEventListener("open", () => refresh());
  source.addEventListener("error", () => setLive("reconnecting", "reconnecting…"));
  const on = (type, fn) =>
    source.addEventListener(type, (e) => {
      const data = JSON.parse(e.data);
      // Changes that arrive while the state is being read are applied after it, or the read would undo them.
      if (held) held.push(() => fn(data));
      else fn(data);
    });
  on("run.created", (run) => {
    state.runs.set(run.run_id, run);
    state.fresh.add(`run:${run.run_id}`);
    schedule("runs");
  });
  for (const type of ["run.updated", "run.ended"]) {
    on(type, (run) => {
      state.runs.set(run.run_id, run);
      schedule("runs", run.run_id);
    });
  }
  on("run.removed", ({ run_id }) => {
    state.runs.delete(run_id);
    schedule("runs", run_id);
  });
  on("run.event", (ev) => {
    state.eventCounts.set(ev.run_id, (state.eventCounts.get(ev.run_id) ?? 0) + 1);
    const list = state.events.get(ev.run_id);
    if (list && !list.some((x) => x.id === ev.id)) {
      list.push(ev);
      if (route().id === ev.run_id) appendEvent(ev, true);
    }
    schedule("runs-count");
  });
  on("feedback.recorded", (fb) => {
    if (state.feedback.some((x) => x.id === fb.id)) return;
    state.feedback.push(fb);
    state.fresh.add(`fb:${fb.id}`);
    schedule("feedback", fb.run_id);
  });
  on("feedback.updated", (fb) => {
    state.feedback = state.feedback.map((x) => (x.id === fb.id ? fb : x));
    schedule("feedback", fb.run_id);
  });
  on("feedback.deleted", ({ id }) => {
    state.feedback = state.feedback.filter((x) => x.id !== id);
    schedule("feedback");
  });
  on("feedback.cleared", () => {
    state.feedback = [];
    schedule("feedback");
  });
  on("trace.recorded", ({ id, trace_id }) => {
    state.fresh.add(`tr:${id}`);
    reloadTrace(trace_id);
  });
  on("trace.updated", ({ trace_id }) => reloadTrace(trace_id));
  on("trace.cleared", () => {
    tracesGeneration++;
    state.traces.clear();
    state.tracesDropped = 0;
    schedule("traces");
  });
  on("request.journaled", (entry) => {
    if (state.requests.some((x) => x.id === entry.id)) return;
    state.requests.push(entry);
    const max = state.options?.journal?.maxEntries ?? 1000;
    if (state.requests.length > max) state.requests.splice(0, state.requests.length - max);
    state.fresh.add(`rq:${entry.id}`);
    schedule("requests");
  });
  for (const action of ["loaded", "removed", "reset"]) {
    on(`scenarios.${action}`, async () => {
      state.scenarios = (await api("GET", "/scenarios")).items;
      schedule("scenarios");
    });
  }
  on("clock.moved", ({ now }) => {
    if (state.clock) state.clock = { ...state.clock, now };
    schedule("clock");
  });
  on("deployment.changed", () => reloadDeployments());
  on("reset", () => refresh());
}

/** Changes held back while refresh() reads the state; null when none is under way. */
let held = null;

/** Nothing is replayed on (re)connect: read the current state, then apply what arrived meanwhile. */
async function refresh() {
  if (held) return;
  held = [];
  try {
    await loadAll();
    setLive("live", "live");
  } catch (err) {
    setLive("reconnecting", `error: ${err.message}`);
  } finally {
    const queued = held;
    held = null;
    for (const apply of queued) apply();
  }
}

function setLive(stateName, text) {
  const el = $("live");
  el.dataset.state = stateName;
  el.textContent = text;
}

// Changes arrive in bursts (a streaming run sends many events): draw at most once per frame.
const pending = new Set();
let drawScheduled = false;
function schedule(what, runId) {
  pending.add(what);
  if (runId && route().id === runId) pending.add("run");
  if (drawScheduled) return;
  drawScheduled = true;
  setTimeout(() => {
    drawScheduled = false;
    const what = new Set(pending);
    pending.clear();
    const section = route().section;
    counts();
    if (what.has("clock")) renderClock();
    // A run's row counts its feedback: feedback changes redraw the list too.
    if ((what.has("runs") || what.has("runs-count") || what.has("feedback")) && section === "runs") renderRuns();
    if ((what.has("run") || what.has("feedback")) && section === "run") renderRunSide();
    if (what.has("feedback") && section === "feedback") renderFeedback();
    if ((what.has("traces") || what.has("feedback")) && section === "traces") renderTraces();
    if (what.has("traces") && section === "run") renderRunSide();
    if (what.has("requests") && section === "requests") renderRequests();
    if (what.has("scenarios") && section === "scenarios") renderScenarios();
    if (what.has("deployments") && section === "deployments") renderDeployments();
  }, 16);
}

// ---------- routing ----------

function route() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [section = "runs", id] = path.split("/");
  if (section === "runs" && id) return { section: "run", id: decodeURIComponent(id), query: new URLSearchParams(query) };
  return { section: section || "runs", id: undefined, query: new URLSearchParams(query) };
}

async function show() {
  const r = route();
  const known = ["runs", "run", "feedback", "traces", "requests", "scenarios", "deployments", "controls"];
  const section = known.includes(r.section) ? r.section : "runs";
  for (const id of known) $(id).hidden = id !== section;
  for (const a of document.querySelectorAll(".tabs a")) {
    const current = a.dataset.section === section || (section === "run" && a.dataset.section === "runs");
    if (current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (section === "feedback") {
    if (r.query.has("run")) $("fb-run").value = r.query.get("run");
    if (r.query.has("key")) $("fb-key").value = r.query.get("key");
  }
  if (section === "traces" && r.query.has("trace")) $("tr-trace").value = r.query.get("trace");
  if (section === "run" && !state.events.has(r.id)) await loadRunEvents(r.id);
  renderSection(section);
}

function renderAll() {
  counts();
  renderClock();
  renderSection(route().section);
}

function renderSection(section) {
  if (section === "runs") renderRuns();
  else if (section === "run") renderRun();
  else if (section === "feedback") renderFeedback();
  else if (section === "traces") renderTraces();
  else if (section === "requests") renderRequests();
  else if (section === "scenarios") renderScenarios();
  else if (section === "deployments") renderDeployments();
  else if (section === "controls") renderControls();
}

function counts() {
  const set = (name, n) => (document.querySelector(`[data-count="${name}"]`).textContent = String(n));
  set("runs", state.runs.size);
  set("feedback", state.feedback.length);
  set("traces", new Set([...state.traces.values()].map((r) => r.trace_id)).size);
  set("requests", state.requests.length);
  set("scenarios", state.scenarios.length);
  set("deployments", state.deployments.items.length);
}

function renderClock() {
  if (!state.clock) return;
  $("clock").textContent = fullTime(state.clock.now);
  if (route().section === "controls") renderControls();
}

// ---------- runs ----------

function sortedRuns() {
  // Runs created at one mock instant keep the order the mock made them in (the map's order), newest first.
  return [...state.runs.values()].reverse().sort((a, b) => (a.created_at === b.created_at ? 0 : a.created_at < b.created_at ? 1 : -1));
}

function renderRuns() {
  const status = $("runs-status").value;
  const scenario = $("runs-scenario").value.trim().toLowerCase();
  const rows = sortedRuns()
    .filter((r) => (!status || r.status === status) && (!scenario || (r.scenario ?? "").toLowerCase().includes(scenario)))
    .map((r) =>
      flash(
        h(
          "tr",
          { "data-run": r.run_id },
          h("td", {}, runLink(r.run_id)),
          h("td", {}, badge(r.status)),
          h("td", { class: "mono" }, r.scenario ?? "—", h("span", { class: "hint" }, r.turn > 1 ? ` turn ${r.turn}` : "")),
          h("td", { class: "mono", title: r.thread_id }, r.stateless ? h("span", { class: "hint" }, "stateless") : short(r.thread_id)),
          h("td", { class: "mono hide-narrow", title: r.assistant_id }, r.graph_id ?? short(r.assistant_id)),
          h("td", { class: "mono hide-narrow", title: r.created_at }, time(r.created_at)),
          h("td", { class: "num" }, isTerminal(r.status) ? duration(r.created_at, r.updated_at) : "…"),
          h("td", { class: "num hide-narrow" }, String(state.eventCounts.get(r.run_id) ?? "")),
          h("td", { class: "num" }, feedbackLinkFor(r.run_id)),
        ),
        `run:${r.run_id}`,
      ),
    );
  const headers = ["Run", "Status", "Scenario", "Thread", { label: "Graph", cls: "hide-narrow" }, { label: "Created (mock)", cls: "hide-narrow" }, { label: "Duration", cls: "num" }, { label: "Events", cls: "num hide-narrow" }, { label: "Feedback", cls: "num" }];
  fill($("runs-list"), table(headers, rows, state.runs.size ? "No run matches these filters." : "No runs yet. Start one with the SDK and it appears here as it streams."));
}

const isTerminal = (s) => ["success", "error", "timeout", "interrupted"].includes(s);

function feedbackLinkFor(runId) {
  const n = state.feedback.filter((f) => f.run_id === runId).length;
  return n ? h("a", { href: `#/feedback?run=${encodeURIComponent(runId)}`, title: "This run's feedback" }, String(n)) : h("span", { class: "hint" }, "0");
}

function renderRun() {
  const { id } = route();
  const run = state.runs.get(id);
  $("run-title").textContent = run ? `Run ${id}` : `Run ${id} (not found)`;
  $("run-timeline").replaceChildren();
  if (!run) {
    $("run-summary").replaceChildren(h("p", { class: "empty" }, "This run is not in the mock (a reset or a rollback removes runs)."));
    for (const x of ["run-request", "run-feedback-urls", "run-feedback", "run-ending"]) $(x).replaceChildren();
    return;
  }
  const events = state.events.get(id) ?? [];
  for (const ev of events) appendEvent(ev, false);
  if (!events.length) $("run-timeline").append(h("li", { class: "hint", "data-empty": "" }, run.status === "pending" ? "Waiting for the run to start…" : "No events."));
  renderRunSide();
}

function appendEvent(ev, live) {
  const list = $("run-timeline");
  list.querySelector("[data-empty]")?.remove();
  const key = `ev:${ev.run_id ?? route().id}:${ev.id}`;
  const item = h(
    "li",
    { class: live ? "fresh" : undefined, "data-event": ev.event },
    details(
      key,
      [h("span", { class: "ev-offset", title: fullTime(ev.at) }, offset(ev.offset_ms)), h("span", { class: "ev-name" }, ev.event), h("span", { class: "ev-size" }, bytes(ev.size)), ev.mode && ev.mode !== ev.event ? h("span", { class: "hint" }, `mode ${ev.mode}`) : null],
      h("pre", {}, pretty(ev.data)),
    ),
  );
  list.append(item);
}

function renderRunSide() {
  const { id } = route();
  const run = state.runs.get(id);
  if (!run) return;
  $("run-title").textContent = `Run ${id}`;
  $("run-summary").replaceChildren(
    h(
      "dl",
      { class: "kv summary" },
      h("dt", {}, "Status"), h("dd", {}, badge(run.status)),
      h("dt", {}, "Scenario"), h("dd", { class: "mono" }, `${run.scenario ?? "—"} (turn ${run.turn})`),
      h("dt", {}, "Route"), h("dd", { class: "mono" }, run.route),
      h("dt", {}, "Thread"), h("dd", { class: "mono" }, run.stateless ? "stateless (temporary thread)" : run.thread_id),
      h("dt", {}, "Assistant"), h("dd", { class: "mono" }, `${run.assistant_id} (graph ${run.graph_id})`),
      run.deployment_id ? [h("dt", {}, "Deployment"), h("dd", { class: "mono" }, run.deployment_id)] : null,
      h("dt", {}, "Created"), h("dd", { class: "mono" }, fullTime(run.created_at)),
      state.traces.has(id) ? [h("dt", {}, "Trace"), h("dd", {}, h("a", { href: `#/traces?trace=${encodeURIComponent(id)}` }, "its trace in the tracing service"))] : null,
      h("dt", {}, "Duration"), h("dd", {}, isTerminal(run.status) ? duration(run.created_at, run.updated_at) : "still playing"),
    ),
  );
  $("run-request").replaceChildren(h("pre", {}, pretty(run.request)));
  const ending = isTerminal(run.status)
    ? h("div", { class: "ending" }, h("strong", {}, "Ended: "), badge(run.status), run.error ? h("pre", {}, pretty(run.error)) : null)
    : h("div", { class: "ending hint" }, run.status === "pending" ? "Pending…" : "Streaming…");
  $("run-ending").replaceChildren(ending);
  const urls = Object.entries(run.feedback_urls ?? {});
  $("run-feedback-urls").replaceChildren(
    urls.length ? h("dl", { class: "kv" }, urls.map(([k, u]) => [h("dt", { class: "mono" }, k), h("dd", { class: "mono" }, u)])) : h("p", { class: "hint" }, isTerminal(run.status) ? "None (the request asked for no feedback_keys, or the run did not succeed)." : "Handed out when the run succeeds."),
  );
  const fb = state.feedback.filter((f) => f.run_id === id);
  $("run-feedback").replaceChildren(
    fb.length
      ? h("ul", {}, fb.map((f) => h("li", {}, h("a", { href: `#/feedback?run=${encodeURIComponent(id)}` }, f.key), ` score ${f.score === null ? "—" : String(f.score)}`, f.comment ? ` — “${f.comment}”` : "")))
      : h("p", { class: "hint" }, "None yet."),
  );
}

// ---------- feedback ----------

function renderFeedback() {
  const key = $("fb-key").value.trim().toLowerCase();
  const run = $("fb-run").value.trim().toLowerCase();
  const scenario = $("fb-scenario").value.trim().toLowerCase();
  const rows = state.feedback
    .filter((f) => (!key || f.key.toLowerCase().includes(key)) && (!run || (f.run_id ?? "").startsWith(run)) && (!scenario || (f.scenario ?? "").toLowerCase().includes(scenario)))
    .slice()
    .reverse()
    .map((f) =>
      flash(
        h(
          "tr",
          { "data-feedback": f.id },
          h("td", { class: "mono", title: f.received_at }, time(f.received_at)),
          h("td", { class: "mono" }, f.key),
          h("td", { class: "num" }, f.score === null || f.score === undefined ? "—" : String(f.score)),
          h("td", { class: "mono" }, f.value === null || f.value === undefined ? "—" : pretty(f.value)),
          h("td", {}, f.comment ?? ""),
          h("td", {}, runLink(f.run_id)),
          h("td", { class: "mono" }, f.scenario ?? "—"),
          h("td", { class: "hide-narrow" }, f.token_id ? h("span", { title: `token ${f.token_id}` }, `token URL (${f.method})`) : "POST /feedback"),
        ),
        `fb:${f.id}`,
      ),
    );
  const headers = ["Received (mock)", "Key", { label: "Score", cls: "num" }, "Value", "Comment", "Run", "Scenario", { label: "Via", cls: "hide-narrow" }];
  fill($("feedback-list"), table(headers, rows, state.feedback.length ? "No feedback matches these filters." : "No feedback captured yet. It appears here when a feedback URL is called."));
}

// ---------- traces ----------

/** Microseconds since the epoch: run times carry six fractional digits, more than Date keeps. */
function micros(iso) {
  if (!iso) return NaN;
  const extra = /\.\d{3}(\d{1,3})/.exec(iso);
  return Date.parse(iso) * 1000 + (extra ? Number(extra[1].padEnd(3, "0")) : 0);
}
function span(us) {
  if (!(us >= 0)) return "—";
  return us === 0 ? "0 ms" : us < 1000 ? `${(us / 1000).toFixed(3)} ms` : elapsed(Math.round(us / 1000));
}
const byDottedOrder = (a, b) => (a.dotted_order < b.dotted_order ? -1 : a.dotted_order > b.dotted_order ? 1 : 0);

/** The captured runs grouped by trace, each trace's runs in dotted order, newest trace first. */
function traceGroups() {
  const groups = new Map();
  for (const r of [...state.traces.values()].sort(byDottedOrder)) {
    if (!groups.has(r.trace_id)) groups.set(r.trace_id, []);
    groups.get(r.trace_id).push(r);
  }
  const start = (runs) => Math.min(...runs.map((r) => micros(r.start_time)));
  return [...groups.entries()].map(([id, runs]) => ({ id, runs, start: start(runs) })).reverse().sort((a, b) => b.start - a.start);
}

function renderTraces() {
  const name = $("tr-name").value.trim().toLowerCase();
  const status = $("tr-status").value;
  const traceId = $("tr-trace").value.trim().toLowerCase();
  const dropped = $("traces-dropped");
  dropped.hidden = !state.tracesDropped;
  dropped.textContent = `${state.tracesDropped} older run${state.tracesDropped === 1 ? "" : "s"} or waiting update${state.tracesDropped === 1 ? "" : "s"} dropped by the trace cap (docs/tracing.md).`;
  const groups = traceGroups();
  const shown = groups.filter(
    (g) => (!traceId || g.id.startsWith(traceId)) && (!name || g.runs.some((r) => r.name.toLowerCase().includes(name))) && (!status || g.runs.some((r) => r.status === status)),
  );
  const empty = groups.length ? "No trace matches these filters." : "No traces yet. Point the langsmith client at the mock's tracing URL, or run an agent: its runs are traced.";
  fill($("traces-list"), shown.length ? h("div", {}, shown.map(traceArticle)) : h("p", { class: "empty" }, empty));
}

function traceArticle({ id, runs, start }) {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map();
  const roots = [];
  for (const r of runs) {
    // A child whose parent is not here (not sent yet, or dropped) is shown at the top of its trace.
    if (r.parent_run_id && ids.has(r.parent_run_id)) {
      if (!children.has(r.parent_run_id)) children.set(r.parent_run_id, []);
      children.get(r.parent_run_id).push(r);
    } else roots.push(r);
  }
  // Parent ids are client data and may form a loop, which no root reaches: its first run becomes one.
  const reached = new Set();
  const reach = (first) => {
    for (const stack = [first]; stack.length; ) {
      const r = stack.pop();
      if (reached.has(r.id)) continue;
      reached.add(r.id);
      stack.push(...(children.get(r.id) ?? []));
    }
  };
  roots.forEach(reach);
  for (const r of runs) {
    if (reached.has(r.id)) continue;
    roots.push(r);
    reach(r);
  }
  const open = runs.some((r) => r.end_time === null && r.error === null);
  const end = Math.max(...runs.map((r) => micros(r.end_time ?? r.start_time)));
  const total = Math.max(end - start, 1);
  const root = roots[0];
  const errors = runs.filter((r) => r.error !== null).length;
  const placed = new Set(); // each run once, however its parents loop
  const tree = (list) => h("ul", { class: "trace-tree" }, list.filter((r) => !placed.has(r.id) && placed.add(r.id)).map((r) => traceRun(r, children, start, total, tree)));
  return h(
    "article",
    { class: "trace", "data-trace": id },
    h(
      "div",
      { class: "trace-head" },
      h("strong", {}, root.name),
      h("span", { class: "hint" }, root.run_type),
      errors ? badge(errors === 1 ? "1 error" : `${errors} errors`, "error") : badge(open ? "pending" : "success"),
      h("span", { class: "hint" }, `${runs.length} run${runs.length === 1 ? "" : "s"}`),
      h("span", { class: "mono hint", title: runs[0].start_time }, time(runs[0].start_time)),
      h("span", { class: "num" }, open ? "…" : span(end - start)),
      h("span", { class: "spacer" }),
      h("span", { class: "hint hide-narrow" }, root.session_name),
      h("span", { class: "mono hint", title: `trace ${id}` }, short(id)),
    ),
    tree(roots),
  );
}

function traceRun(r, children, start, total, tree) {
  const begin = micros(r.start_time) - start;
  const took = r.end_time === null ? null : micros(r.end_time) - micros(r.start_time);
  const bar = h("span", { class: r.error !== null ? "bar-fill err" : "bar-fill" });
  // Set through the CSSOM: the page's Content-Security-Policy refuses style attributes.
  bar.style.marginLeft = `${Math.min(100, (begin / total) * 100)}%`;
  bar.style.width = `${took === null ? 100 - Math.min(100, (begin / total) * 100) : Math.max(0.5, (took / total) * 100)}%`;
  const fb = state.feedback.filter((f) => f.run_id === r.id);
  const summary = [
    h("span", { class: "tr-name" }, r.name),
    h("span", { class: "hint" }, r.run_type),
    r.error !== null ? h("span", { class: "badge s-error", "data-error": "" }, "error") : r.end_time === null ? badge("pending") : null,
    fb.map((f) => h("a", { class: "fb-chip", href: `#/feedback?run=${encodeURIComponent(r.id)}`, title: f.comment ?? undefined }, `${f.key} ${f.score === null || f.score === undefined ? "—" : String(f.score)}`)),
    h("span", { class: "spacer" }),
    h("span", { class: "ev-offset hide-narrow", title: fullTime(r.start_time) }, `+${span(begin)}`),
    h("span", { class: "tr-took num" }, took === null ? "…" : span(took)),
    h("span", { class: "bar hide-narrow", "aria-hidden": "true" }, bar),
  ];
  const meta = r.extra?.metadata;
  const body = h(
    "div",
    { class: "tr-body" },
    h("dl", { class: "kv" }, h("dt", {}, "Run"), h("dd", { class: "mono" }, r.id), r.tags.length ? [h("dt", {}, "Tags"), h("dd", { class: "mono" }, r.tags.join(", "))] : null),
    h("h4", {}, "Inputs"),
    h("pre", { "data-inputs": "" }, r.inputs === null ? "—" : pretty(r.inputs)),
    h("h4", {}, "Outputs"),
    h("pre", { "data-outputs": "" }, r.outputs === null ? (r.end_time === null ? "still running" : "—") : pretty(r.outputs)),
    r.error !== null ? [h("h4", {}, "Error"), h("pre", { class: "err-msg", "data-run-error": "" }, r.error)] : null,
    meta && Object.keys(meta).length ? [h("h4", {}, "Metadata"), h("pre", {}, pretty(meta))] : null,
    fb.length ? [h("h4", {}, "Feedback"), h("ul", {}, fb.map((f) => h("li", {}, h("span", { class: "mono" }, f.key), ` score ${f.score === null ? "—" : String(f.score)}`, f.comment ? ` — “${f.comment}”` : "")))] : null,
  );
  const kids = children.get(r.id);
  return flash(h("li", { class: r.error !== null ? "errored" : undefined, "data-trace-run": r.id }, details(`tr:${r.id}`, summary, body), kids ? tree(kids) : null), `tr:${r.id}`);
}

// ---------- requests ----------

function answeredBy(entry) {
  const r = state.routes.find((x) => x.method === entry.method && x.re.test(entry.path));
  return r ? r.path : null;
}

function renderRequests() {
  const method = $("rq-method").value;
  const path = $("rq-path").value.trim();
  const status = $("rq-status").value;
  const rows = state.requests
    .filter((e) => (!method || e.method === method) && (!path || e.path.startsWith(path)) && (!status || (status === "miss" ? Boolean(e.note?.near_miss) : String(e.status).startsWith(status))))
    .slice()
    .reverse()
    .map((e) => {
      const by = answeredBy(e);
      const note = e.note ?? {};
      const answered = [
        by ? h("div", { class: "mono", title: e.route ? `route ${e.route}` : undefined }, by) : h("div", { class: "hint" }, "no route"),
        note.scenario ? h("div", {}, "scenario ", h("span", { class: "mono" }, note.scenario), note.run_id ? [" → run ", runLink(note.run_id)] : "") : null,
        e.fault ? h("div", { class: "err-msg" }, `fault injected: ${e.fault.kind} (rule ${e.fault.id})`) : null,
        note.near_miss ? h("div", {}, h("strong", { class: "err-msg" }, "No scenario matched"), note.near_miss.length ? h("ul", { class: "near-miss" }, note.near_miss.map((m) => h("li", {}, m))) : h("div", { class: "hint" }, "no scenarios loaded")) : null,
      ];
      return flash(
        h(
          "tr",
          { "data-request": e.id },
          h("td", { class: "num hint" }, String(e.id)),
          h("td", { class: "mono hide-narrow", title: e.received_at }, time(e.received_at)),
          h("td", { class: "mono" }, e.method),
          h(
            "td",
            { class: "mono" },
            details(`rq:${e.id}`, [e.path, Object.keys(e.query ?? {}).length ? h("span", { class: "hint" }, `?${new URLSearchParams(e.query)}`) : null], h("pre", {}, pretty({ query: e.query, body: e.body }))),
          ),
          h("td", {}, badge(String(e.status), String(e.status)[0])),
          h("td", {}, answered),
          h("td", { class: "num hide-narrow" }, `${e.duration_ms} ms`),
        ),
        `rq:${e.id}`,
      );
    });
  const headers = [{ label: "#", cls: "num" }, { label: "Time (mock)", cls: "hide-narrow" }, "Method", "Path", "Status", "Answered by", { label: "Took", cls: "num hide-narrow" }];
  fill($("requests-list"), table(headers, rows, state.requests.length ? "No request matches these filters." : "No requests yet."));
}

// ---------- scenarios ----------

function renderScenarios() {
  // Runs try scenarios by priority (highest first), then load order; the list comes in load order.
  const ordered = state.scenarios.map((s, i) => ({ s, i })).sort((a, b) => b.s.priority - a.s.priority || a.i - b.i).map((x) => x.s);
  const items = ordered.map((s, n) =>
    h(
      "article",
      { class: "scenario", "data-scenario": s.name },
      h(
        "div",
        { class: "scenario-head" },
        h("span", { class: "order" }, `${n + 1}.`),
        h("strong", { class: "mono" }, s.name),
        s.graph_id ? h("span", { class: "hint" }, `graph ${s.graph_id}`) : null,
        s.priority ? h("span", { class: "hint" }, `priority ${s.priority}`) : null,
        h("span", { class: "hint" }, `${s.turns.length} turn${s.turns.length === 1 ? "" : "s"}`),
        h("span", { class: "spacer" }),
        h("span", { class: "hint mono hide-narrow" }, s.source),
        h("button", { type: "button", class: "danger", "data-key": `rm:${s.name}`, "aria-label": `Remove scenario ${s.name}`, onclick: () => removeScenario(s.name) }, "Remove"),
      ),
      s.description ? h("p", { class: "hint" }, s.description) : null,
      details(`sc:${s.name}`, "View", h("pre", {}, pretty({ match: s.match, turns: s.turns }))),
    ),
  );
  fill($("scenarios-list"), items.length ? h("div", {}, items) : h("p", { class: "empty" }, "No scenarios loaded: every run is refused until one is. Paste one below."));
}

async function removeScenario(name) {
  if (!confirm(`Remove scenario '${name}'?`)) return;
  try {
    await api("DELETE", `/scenarios/${encodeURIComponent(name)}`);
    message($("scenario-result"), "ok", `Removed '${name}'.`);
  } catch (err) {
    message($("scenario-result"), "err", err.message);
  }
}

function message(region, kind, text) {
  region.replaceChildren(h("p", { class: kind === "ok" ? "ok-msg" : "err-msg" }, text));
}

/** The same lines `agent-platform-mock validate` prints (src/core/load-error.ts formatProblem). */
function problemLines(problems) {
  return `${problems.length} problem${problems.length === 1 ? "" : "s"} found:\n${problems.map((p) => `  ${p.file}#${p.pointer}${p.line ? ` (line ${p.line})` : ""}: ${p.reason}`).join("\n")}`;
}

async function submitScenario(e) {
  e.preventDefault();
  const text = $("scenario-text").value;
  const json = $("scenario-format").value === "json";
  const result = $("scenario-result");
  try {
    const data = await api("POST", "/scenarios", text, json ? "application/json" : "application/yaml");
    message(result, "ok", `Loaded ${data.loaded.map((n) => `'${n}'`).join(", ")}.`);
  } catch (err) {
    if (Array.isArray(err.detail)) result.replaceChildren(h("pre", { class: "problems", "data-problems": "" }, problemLines(err.detail)));
    else message(result, "err", err.message);
  }
}

// ---------- deployments ----------

const PATHS = {
  build: ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"],
  image: ["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"],
};
const FAILED = { CREATE_FAILED: "QUEUED", BUILD_FAILED: "BUILDING", DEPLOY_FAILED: "DEPLOYING" };

function steps(revision, source) {
  const path = source === "internal_docker" || source === "external_docker" ? PATHS.image : PATHS.build;
  let at = path.indexOf(revision.status);
  const failed = FAILED[revision.status] !== undefined;
  if (failed) at = Math.max(0, path.indexOf(FAILED[revision.status]));
  return h(
    "ol",
    { class: "steps", "aria-label": `Lifecycle of revision ${short(revision.id)}` },
    path.map((s, i) => {
      const cls = at < 0 ? "" : i < at ? "done" : i === at ? (failed ? "failed" : s === "DEPLOYED" ? "done" : "current") : "";
      return h("li", { class: cls, "aria-current": i === at ? "step" : undefined }, i === at && failed ? revision.status : s);
    }),
  );
}

function renderDeployments() {
  const d = state.deployments;
  $("lifecycle-hint").textContent = `lifecycle: ${d.lifecycle}${d.lifecycle === "timed" ? `, ${d.lifecycle_step_ms / 1000}s per step` : ""}`;
  $("dep-step").hidden = d.lifecycle === "immediate";
  const items = d.items.map((dep) => {
    const latest = dep.revisions[0];
    return h(
      "article",
      { class: "deployment", "data-deployment": dep.id },
      h(
        "div",
        { class: "deployment-head" },
        h("strong", {}, dep.name),
        h("span", { class: "mono hint", title: dep.id }, short(dep.id)),
        badge(dep.status, "x"),
        h("span", { class: "hint" }, dep.source),
        latest ? h("span", {}, "latest revision ", badge(latest.status)) : h("span", { class: "hint" }, "no revisions"),
        dep.in_flight_revision_id ? badge("in flight", "in-flight") : null,
      ),
      latest ? steps(latest, dep.source) : null,
      dep.revisions.length
        ? details(
            `dep:${dep.id}`,
            `${dep.revisions.length} revision${dep.revisions.length === 1 ? "" : "s"}`,
            table(
              ["Revision", "Status", "Created (mock)", "Updated (mock)"],
              dep.revisions.map((r) => h("tr", {}, h("td", { class: "mono", title: r.id }, short(r.id), r.id === dep.active_revision_id ? h("span", { class: "hint" }, " active") : ""), h("td", {}, badge(r.status)), h("td", { class: "mono" }, time(r.created_at)), h("td", { class: "mono" }, time(r.updated_at)))),
              "",
            ),
          )
        : null,
    );
  });
  fill($("deployments-list"), items.length ? h("div", {}, items) : h("p", { class: "empty" }, "No deployments."));
}

// ---------- controls ----------

function renderControls() {
  if (state.clock) {
    $("ctl-now").textContent = fullTime(state.clock.now);
    $("ctl-mode").textContent = `${state.clock.mode === "fixed" ? "fixed (seeded): moves only when advanced" : "real: wall time plus what tests added"}${state.clock.mode === "fixed" ? `, stream delays ${state.clock.auto_advance ? "jump ahead by themselves" : "wait for the clock"}` : ""}; lifecycle ${state.clock.lifecycle}`;
  }
  const o = state.options;
  if (!o) return;
  const rows = [
    ["seed", o.seed === null ? "none (random ids, wall-clock time)" : String(o.seed)],
    ["clock", `${o.clock.mode}${o.clock.start ? `, starts ${o.clock.start}` : ""}, auto-advance ${o.clock.auto_advance}`],
    ["lifecycle", `${o.lifecycle} (${o.lifecycle_step_ms / 1000}s per step when timed)`],
    ["heartbeat", `${o.heartbeat_ms} ms of mock time`],
    ["journal", `${o.journal.maxEntries} entries, bodies up to ${bytes(o.journal.maxBodyBytes)}`],
    ["body limit", o.body_limit],
    ["API key", o.api_key_required ? "required (X-Api-Key)" : "not required"],
    ["admin token", o.admin_token_required ? "required" : "not required"],
    ["public URL", o.public_url ?? "the request's own origin"],
    ["tracing URL", o.tracing_url ?? "same as the public URL"],
    ["fixtures", o.fixtures === false ? "none" : o.fixtures === null ? "bundled" : o.fixtures.join(", ")],
    ["scenarios", o.scenarios === null ? "none given" : o.scenarios.join(", ") || "none"],
  ];
  $("options").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { class: "mono" }, v)]));
}

async function moveClock(body) {
  try {
    state.clock = await api("POST", "/clock", body);
    message($("clock-result"), "ok", `Now ${fullTime(state.clock.now)}.`);
    renderClock();
  } catch (err) {
    message($("clock-result"), "err", err.message);
  }
}

// ---------- wiring ----------

function wire() {
  window.addEventListener("hashchange", () => {
    show();
    $("main").focus({ preventScroll: true });
  });
  for (const id of ["runs-status", "runs-scenario"]) $(id).addEventListener("input", renderRuns);
  for (const id of ["fb-key", "fb-run", "fb-scenario"]) $(id).addEventListener("input", renderFeedback);
  for (const id of ["tr-name", "tr-status", "tr-trace"]) $(id).addEventListener("input", renderTraces);
  $("fb-clear").addEventListener("click", () => {
    for (const id of ["fb-key", "fb-run", "fb-scenario"]) $(id).value = "";
    if (location.hash.includes("?")) location.hash = "#/feedback";
    renderFeedback();
  });
  for (const id of ["rq-method", "rq-path", "rq-status"]) $(id).addEventListener("input", renderRequests);
  $("scenario-form").addEventListener("submit", submitScenario);
  $("scenario-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("scenario-form").requestSubmit();
  });
  $("advance-form").addEventListener("submit", (e) => {
    e.preventDefault();
    moveClock({ advance: $("advance-by").value.trim() });
  });
  for (const b of document.querySelectorAll("[data-advance]")) b.addEventListener("click", () => moveClock({ advance: b.dataset.advance }));
  $("set-form").addEventListener("submit", (e) => {
    e.preventDefault();
    moveClock({ set: $("set-to").value.trim() });
  });
  $("dep-step").addEventListener("click", () => moveClock({ advance: `${state.deployments.lifecycle_step_ms}ms` }));
  $("reset-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const scope = $("reset-scope").value;
    try {
      await api("POST", "/reset", { scope });
      message($("reset-result"), "ok", `Reset ${scope}.`);
    } catch (err) {
      message($("reset-result"), "err", err.message);
    }
  });
}

wire();
show();
connect();
