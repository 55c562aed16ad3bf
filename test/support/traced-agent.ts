import type { Client } from "langsmith";
import { traceable } from "langsmith/traceable";

/**
 * An app traced by the real langsmith client: an agent (tagged, with metadata) calls a retriever, then
 * a tool that throws; the agent carries on with the error's message. Returns once the client has sent
 * everything.
 */
export async function runTracedAgent(ls: Client, question: string, projectName: string): Promise<void> {
  const config = { client: ls, tracingEnabled: true, project_name: projectName };
  const lookup = traceable(async (q: string) => ({ hits: [`${q}-1`, `${q}-2`] }), { ...config, name: "lookup", run_type: "retriever" });
  const calculator = traceable(
    async (_expr: string): Promise<number> => {
      throw new Error("division by zero");
    },
    { ...config, name: "calculator", run_type: "tool" },
  );
  const agent = traceable(
    async (input: { question: string }) => {
      const found = await lookup(input.question);
      const sum = await calculator("1/0").catch((err: Error) => err.message);
      return { answer: `${found.hits.length} hits, ${sum}` };
    },
    { ...config, name: "agent", run_type: "chain", tags: ["e2e"], metadata: { user: "ada" } },
  );
  await agent({ question });
  await ls.awaitPendingTraceBatches();
}
