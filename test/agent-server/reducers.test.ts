import { describe, expect, it } from "vitest";
import { addMessages, appendList, applyWrites, DEFAULT_CHANNELS, normalizeWrite, ReducerError, toMessage } from "../../src/agent-server/reducers.js";

/** Ids as a seeded generator would hand them out: predictable, so the tests can name them. */
function ids() {
  let n = 0;
  return () => `id-${++n}`;
}

const human = (content: string, id: string) => ({ content, additional_kwargs: {}, response_metadata: {}, type: "human", name: null, id });
const ai = (content: string, id: string) => ({ ...human(content, id), type: "ai", tool_calls: [], invalid_tool_calls: [], usage_metadata: null });

describe("toMessage (convert_to_messages, message_chunk_to_message)", () => {
  it("makes a string a human message with a new id", () => {
    expect(toMessage("hi", ids())).toEqual(human("hi", "id-1"));
  });

  it("takes a role dict, a [role, content] pair and a typed dict, filling the type's fields in model_dump order", () => {
    const next = ids();
    expect(JSON.stringify(toMessage({ role: "user", content: "a" }, next))).toBe(JSON.stringify(human("a", "id-1")));
    expect(toMessage(["assistant", "b"], next)).toEqual(ai("b", "id-2"));
    expect(toMessage({ type: "tool", content: "c", tool_call_id: "t1", id: "x" }, next)).toEqual({
      content: "c",
      additional_kwargs: {},
      response_metadata: {},
      type: "tool",
      name: null,
      id: "x",
      tool_call_id: "t1",
      artifact: null,
      status: "success",
    });
    expect(toMessage({ role: "developer", content: null }, next)).toMatchObject({ type: "system", content: "", id: "id-3" });
  });

  it("stores a chunk as its message, without the chunk-only fields", () => {
    const m = toMessage({ type: "AIMessageChunk", id: "m1", content: "x", tool_call_chunks: [{ index: 0 }], example: false }, ids());
    expect(m).toEqual({ ...ai("x", "m1"), example: false });
  });

  it("refuses an unknown role with LangGraph's ValueError", () => {
    expect(() => toMessage({ role: "robot", content: "x" }, ids())).toThrowError(/Unexpected message type: 'robot'/);
    expect(() => toMessage(3, ids())).toThrowError(ReducerError);
  });
});

describe("addMessages", () => {
  it("appends new messages and replaces one whose id exists, in place", () => {
    const left = [human("q", "h1"), ai("draft", "a1")];
    expect(addMessages(left, [ai("final", "a1"), ai("more", "a2")], ids())).toEqual([human("q", "h1"), ai("final", "a1"), ai("more", "a2")]);
  });

  it("takes a single message for a list", () => {
    expect(addMessages([], "hello", ids())).toEqual([human("hello", "id-1")]);
  });

  it("deletes by a remove message and refuses to remove an id that is not there", () => {
    const left = [human("q", "h1"), ai("a", "a1")];
    expect(addMessages(left, [{ type: "remove", id: "h1" }], ids())).toEqual([ai("a", "a1")]);
    expect(() => addMessages(left, [{ type: "remove", id: "nope" }], ids())).toThrowError("Attempting to delete a message with an ID that doesn't exist ('nope')");
  });

  it("keeps only what follows a remove-all", () => {
    expect(addMessages([human("q", "h1")], [{ type: "remove", id: "__remove_all__" }, ai("fresh", "a9")], ids())).toEqual([ai("fresh", "a9")]);
  });
});

describe("appendList (operator.add)", () => {
  it("concatenates lists, from empty when the channel has none", () => {
    expect(appendList(undefined, [1])).toEqual([1]);
    expect(appendList([1], [2, 3])).toEqual([1, 2, 3]);
  });

  it("is Python's TypeError for anything else", () => {
    expect(() => appendList([1], "x")).toThrowError('can only concatenate list (not "str") to list');
  });
});

describe("applyWrites", () => {
  it("reduces each channel by its reducer, last-value for the rest, without touching the state given", () => {
    const state = { messages: [human("q", "h1")], notes: ["a"], topic: "old" };
    const out = applyWrites(state, [{ messages: [{ role: "ai", content: "r" }], notes: ["b"], topic: "new" }], { messages: "add_messages", notes: "append" }, ids());
    expect(out).toEqual({ messages: [human("q", "h1"), ai("r", "id-1")], notes: ["a", "b"], topic: "new" });
    expect(state.notes).toEqual(["a"]);
  });

  it("gives a graph without channels MessagesState: messages reduced, lists replaced", () => {
    const out = applyWrites({ messages: [human("q", "h1")], items: [1] }, [{ messages: [ai("r", "a1")], items: [2] }], DEFAULT_CHANNELS, ids());
    expect(out).toEqual({ messages: [human("q", "h1"), ai("r", "a1")], items: [2] });
  });

  it("refuses two writes of one last-value channel in a step (InvalidUpdateError)", () => {
    expect(() => applyWrites({}, [{ topic: "a" }, { topic: "b" }], DEFAULT_CHANNELS, ids())).toThrowError(/At key 'topic': Can receive only one value per step/);
  });

  it("leaves messages alone when a node writes none", () => {
    expect(applyWrites({ messages: [human("q", "h1")] }, [{ messages: null }], DEFAULT_CHANNELS, ids())).toEqual({ messages: [human("q", "h1")] });
  });
});

describe("normalizeWrite", () => {
  it("gives a node's messages ids and types, keeping a single message single", () => {
    const next = ids();
    expect(normalizeWrite({ messages: [{ role: "ai", content: "x" }], n: 1 }, DEFAULT_CHANNELS, next)).toEqual({ messages: [ai("x", "id-1")], n: 1 });
    expect(normalizeWrite({ messages: "hi" }, DEFAULT_CHANNELS, next)).toEqual({ messages: human("hi", "id-2") });
  });
});
