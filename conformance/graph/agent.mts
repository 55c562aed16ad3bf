// A deterministic graph for the conformance capture: no LLM, no network, no clock or randomness of its own.
// respond -> approve (interrupts for a human decision) -> finish.
// The reply comes from FakeListChatModel so the `messages` stream modes carry real token chunks,
// as they would from a chat model, while the text stays fixed.
import { AIMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, END, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  decision: Annotation<string | undefined>(),
});

const model = new FakeListChatModel({ responses: ["Hello there"] });

export const graph = new StateGraph(State)
  .addNode("respond", async (state, config) => {
    config.writer?.({ progress: "drafting a reply" });
    const reply = await model.invoke(state.messages, config);
    return { messages: [reply] };
  })
  .addNode("approve", async () => {
    const decision = interrupt({ question: "Send this reply?" }) as string;
    return { decision };
  })
  .addNode("finish", async (state) => {
    return { messages: [new AIMessage({ content: `Decision: ${state.decision ?? "none"}` })] };
  })
  .addEdge(START, "respond")
  .addEdge("respond", "approve")
  .addEdge("approve", "finish")
  .addEdge("finish", END)
  .compile();
