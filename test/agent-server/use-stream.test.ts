import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createElement, act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { Window } from "happy-dom";
import { useStream } from "@langchain/langgraph-sdk/react";
import type { Message } from "@langchain/langgraph-sdk";
import { startMockServer, type MockServer } from "../../src/index.js";
import { BUNDLED_SCENARIOS } from "../../src/options.js";
import type { ScenarioInput } from "../../src/agent-server/scenario-types.js";

// A React component using the SDK's own `useStream` hook, rendered into a happy-dom document and
// talking to the mock over real HTTP with Node's fetch: nothing of the SDK is stubbed. It streams a conversation,
// edits an earlier message (a branch from the checkpoint before it, found through the thread's
// history) and resumes an interrupt, as a chat UI does.

// Only the DOM globals React needs are installed, and only while this file runs: happy-dom's whole
// environment would also replace Node's URL and fetch, which the mock itself runs on in this process
// (and unit files share a worker, so nothing may stay behind).
const DOM_GLOBALS = ["window", "document", "navigator", "HTMLElement", "Node", "IS_REACT_ACT_ENVIRONMENT"] as const;
let dom: Window;
function installDom(): () => void {
  const window = (dom = new Window({ url: "http://localhost/" }));
  const g = globalThis as Record<string, unknown>;
  const before = DOM_GLOBALS.map((k) => [k, Object.getOwnPropertyDescriptor(g, k)] as const);
  const values: Record<(typeof DOM_GLOBALS)[number], unknown> = { window, document: window.document, navigator: window.navigator, HTMLElement: window.HTMLElement, Node: window.Node, IS_REACT_ACT_ENVIRONMENT: true };
  for (const k of DOM_GLOBALS) Object.defineProperty(g, k, { value: values[k], configurable: true, writable: true });
  return () => {
    for (const [k, d] of before) {
      if (d) Object.defineProperty(g, k, d);
      else delete g[k];
    }
    void window.happyDOM.close();
  };
}

const human = (id: string, content: string) => ({ type: "human", id, content, additional_kwargs: {}, response_metadata: {}, name: null, example: false });
const ai = (id: string, content: string) => ({ type: "ai", id, content, additional_kwargs: {}, response_metadata: {}, name: null, example: false, tool_calls: [], invalid_tool_calls: [] });

/**
 * A two-turn chat whose state is the whole message list, as a `MessagesState` graph keeps it. The
 * second turn is what any later message on the thread plays, so a message edited from the second
 * turn's parent checkpoint plays it again with the new text: the branch.
 */
const chat: ScenarioInput = {
  name: "chat",
  priority: 10,
  match: { assistant_id: "agent", input: { messages: { $exists: true } }, metadata: { ui: "chat" } },
  turns: [
    {
      events: [
        { event: "values", data: { messages: [human("{{id.h1}}", "{{input.messages.0.content}}")] } },
        { event: "values", delay_ms: 100, data: { messages: [human("{{id.h1}}", "{{input.messages.0.content}}"), ai("{{id.a1}}", "Hello! What city?")] } },
      ],
    },
    {
      events: [
        { event: "values", data: { messages: [human("{{id.h1}}", "hi"), ai("{{id.a1}}", "Hello! What city?"), human("{{run_id}}-h", "{{input.messages.0.content}}")] } },
        {
          event: "values",
          delay_ms: 100,
          data: { messages: [human("{{id.h1}}", "hi"), ai("{{id.a1}}", "Hello! What city?"), human("{{run_id}}-h", "{{input.messages.0.content}}"), ai("{{run_id}}-a", "Sunny in {{input.messages.0.content}}.")] },
        },
      ],
    },
  ],
};

type Stream = ReturnType<typeof useStream<{ messages: Message[] }>>;

/** One mounted chat component: the hook's latest value, what it rendered and the thread it made. */
interface Mounted {
  stream: () => Stream;
  rendered: () => string[];
  threadId: () => string | undefined;
  unmount: () => Promise<void>;
}

async function mount(apiUrl: string): Promise<Mounted> {
  let stream: Stream | undefined;
  let threadId: string | undefined;
  function Chat() {
    stream = useStream<{ messages: Message[] }>({ apiUrl, assistantId: "agent", messagesKey: "messages", fetchStateHistory: true, onThreadId: (id) => (threadId = id) });
    return createElement(
      "ul",
      null,
      stream.messages.map((m) => createElement("li", { key: m.id, "data-type": m.type }, String(m.content))),
    );
  }
  const container = dom.document.createElement("div");
  dom.document.body.appendChild(container);
  // happy-dom's element is the DOM element React renders into (the project's tsconfig has no DOM lib).
  const root: Root = createRoot(container as unknown as Parameters<typeof createRoot>[0]);
  await act(async () => root.render(createElement(Chat)));
  return {
    stream: () => stream as Stream,
    rendered: () => [...container.querySelectorAll("li")].map((li) => `${li.dataset.type}: ${li.textContent}`),
    threadId: () => threadId,
    unmount: async () => {
      await act(async () => root.unmount());
      container.remove();
    },
  };
}

/** Runs `action` in act() and waits until the hook has settled (its run over, its history fetched). */
async function settle(ui: Mounted, action: () => Promise<void>): Promise<void> {
  await act(action);
  for (let i = 0; i < 200 && (ui.stream().isLoading || ui.stream().isThreadLoading); i++) await act(() => new Promise((r) => setTimeout(r, 5)));
  expect(ui.stream().isLoading).toBe(false);
}

describe("useStream from @langchain/langgraph-sdk/react against the mock", () => {
  let mock: MockServer;
  let removeDom: () => void;

  beforeAll(async () => {
    removeDom = installDom();
    // autoAdvance: the scenarios' delays pass on the mock's clock at once.
    mock = await startMockServer({ port: 0, seed: 5, fixtures: false, scenarios: [BUNDLED_SCENARIOS, chat], clock: { autoAdvance: true } });
  });
  afterAll(async () => {
    await mock.close();
    removeDom();
  });

  it("streams a conversation into the component, then branches from an earlier message", async () => {
    const ui = await mount(mock.url);
    await settle(ui, () => ui.stream().submit({ messages: [{ type: "human", content: "hi" }] }, { metadata: { ui: "chat" } }));
    expect(ui.rendered()).toEqual(["human: hi", "ai: Hello! What city?"]);
    expect(ui.threadId()).toMatch(/^[0-9a-f-]{36}$/);

    await settle(ui, () => ui.stream().submit({ messages: [{ type: "human", content: "Paris" }] }, { metadata: { ui: "chat" } }));
    expect(ui.rendered()).toEqual(["human: hi", "ai: Hello! What city?", "human: Paris", "ai: Sunny in Paris."]);

    // Edit "Paris": submit from the checkpoint before the message was first seen (its parent), as a
    // chat UI's edit button does with getMessagesMetadata().
    const paris = ui.stream().messages[2] as Message;
    const parent = ui.stream().getMessagesMetadata(paris)?.firstSeenState?.parent_checkpoint;
    expect(parent?.checkpoint_id).toMatch(/^[0-9a-f-]{36}$/);
    await settle(ui, () => ui.stream().submit({ messages: [{ type: "human", content: "Rome" }] }, { checkpoint: parent, metadata: { ui: "chat" } }));
    expect(ui.rendered()).toEqual(["human: hi", "ai: Hello! What city?", "human: Rome", "ai: Sunny in Rome."]);

    // The history now holds both branches, and the edited message offers the two.
    const rome = ui.stream().messages[2] as Message;
    const branches = ui.stream().getMessagesMetadata(rome)?.branchOptions ?? [];
    expect(branches).toHaveLength(2);
    const other = branches.find((b) => b !== ui.stream().branch) as string;
    await act(async () => ui.stream().setBranch(other));
    expect(ui.rendered()).toEqual(["human: hi", "ai: Hello! What city?", "human: Paris", "ai: Sunny in Paris."]);
    await ui.unmount();
  });

  it("shows an interrupt and resumes it with a command", async () => {
    const ui = await mount(mock.url);
    await settle(ui, () => ui.stream().submit({ messages: [{ type: "human", content: "Email the quarterly report to the team" }] }));
    expect(ui.stream().interrupt?.value).toMatchObject({ question: "Send this email?", allowed_decisions: ["approve", "edit", "reject"] });
    expect(ui.rendered()).toEqual(["human: Email the quarterly report to the team", "ai: "]);

    await settle(ui, () => ui.stream().submit(undefined, { command: { resume: "approve" } }));
    expect(ui.stream().interrupt).toBeUndefined();
    expect(ui.rendered()).toEqual(["human: Email the quarterly report to the team", "ai: ", "tool: Email sent.", "ai: Done: the quarterly report email was sent."]);
    const runs = (await (await fetch(`${mock.url}/threads/${ui.threadId()}/runs`)).json()) as { status: string }[];
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
    await ui.unmount();
  });
});
