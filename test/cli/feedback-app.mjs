// The "app under test" for the Playwright recipe (test/cli/runner-recipes.test.ts): one page that
// streams a run from the agent server at AGENT_URL asking for a `user_liked` feedback URL, and posts
// { score: 1 } to it when 👍 is clicked. Served on PORT by `npm run dev` in the temporary project.
import { createServer } from "node:http";

const script = `
const agent = ${JSON.stringify(process.env.AGENT_URL)};
const post = (url, body) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const res = await post(agent + "/runs/stream", { assistant_id: "agent", input: { messages: [{ role: "user", content: "hi" }] }, feedback_keys: ["user_liked"] });
const urls = JSON.parse(/event: feedback\\r?\\ndata: (.*)/.exec(await res.text())[1]);
const button = document.querySelector("button");
button.onclick = async () => {
  await post(urls.user_liked, { score: 1 });
  document.querySelector("output").textContent = "Thanks!";
};
button.disabled = false;
`;
const page = `<!doctype html><meta charset="utf-8"><title>Chat</title><button disabled>👍</button><output></output><script type="module">${script}</script>`;

createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(page);
}).listen(Number(process.env.PORT), "127.0.0.1");
