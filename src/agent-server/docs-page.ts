/**
 * `GET /docs`: a page over `/openapi.json` (the real server serves its API reference there). It is
 * self-contained — inline style and script, no fonts or CDNs — and its policy forbids any other
 * origin; the script builds the list with text nodes only, so nothing in the document becomes markup.
 */
export const DOCS_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Agent Server API</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
li { list-style: none; margin: .3em 0; } code { font: 13px ui-monospace, monospace; }
.m { display: inline-block; width: 5em; font-weight: 600; } .s { color: #555; margin-left: .5em; }
</style>
</head>
<body>
<h1>Agent Server API</h1>
<p>The routes this server answers, from <a href="/openapi.json"><code>/openapi.json</code></a>.</p>
<div id="ops">Loading…</div>
<script>
(async () => {
  const root = document.getElementById("ops");
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
  try {
    const doc = await (await fetch("/openapi.json")).json();
    const byTag = new Map();
    for (const [path, item] of Object.entries(doc.paths || {})) {
      for (const [method, op] of Object.entries(item)) {
        const tag = (op.tags && op.tags[0]) || "other";
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push([method.toUpperCase(), path, op.summary || op.operationId || ""]);
      }
    }
    root.textContent = "";
    for (const [tag, ops] of byTag) {
      root.append(el("h2", "", tag));
      const list = el("ul");
      for (const [method, path, summary] of ops) {
        const li = el("li");
        li.append(el("span", "m", method), el("code", "", path), el("span", "s", summary));
        list.append(li);
      }
      root.append(list);
    }
  } catch (err) {
    root.textContent = "Could not read /openapi.json: " + err;
  }
})();
</script>
</body>
</html>
`;
