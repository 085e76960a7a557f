import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { ScriptedModel } from "./support/scripted-model.js";
import { tempRoot } from "./support/subjects.js";
import { toolResponses } from "./support/turn.js";

const HEADING = "## Use artifact-kit in your ADK agent";
const EXAMPLE = new URL("../examples/notes-agent.ts", import.meta.url);

async function readmeExample(): Promise<string> {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf(HEADING));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined) throw new Error(`no ts block under "${HEADING}"`);
  return code;
}

it("is examples/notes-agent.ts, which the package's typecheck compiles", async () => {
  expect(await readmeExample()).toBe(await readFile(EXAMPLE, "utf8"));
});

it("runs as written: the agent lists and reads notes from the fs adapter through a real Runner", async () => {
  process.env.ARTIFACTS_DIR = await tempRoot();
  const example = await import("../examples/notes-agent.js");
  const { agent, artifacts, runner, sessionService } = example;
  const model = new ScriptedModel([
    { call: "list_notes", args: {} },
    { call: "load_artifacts", args: { artifact_names: ["draft.md"] } },
    { answer: "your draft says hello" },
  ]);
  agent.model = model; // the one change: a scripted model instead of a network one
  try {
    const key = { appName: "notes_app", userId: "ada", sessionId: "s1" };
    await sessionService.createSession(key);
    const draft = { ...key, filename: "draft.md", artifact: { text: "# hello" } };
    await runner.artifactService?.saveArtifact(draft);
    const events = [];
    for await (const event of runner.runAsync({
      userId: "ada",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "what does my draft say?" }] },
    })) {
      events.push(event);
    }
    expect(model.requests[0]?.config?.systemInstruction).toContain("The current draft: # hello");
    expect(toolResponses(events)[0]).toEqual({ results: ["draft.md"] });
    expect(model.requests[2]?.contents.at(-1)).toEqual({
      role: "user",
      parts: [{ text: "Artifact draft.md (version 0) is:" }, { text: "# hello" }],
    });
    expect(events.at(-1)?.content?.parts).toEqual([{ text: "your draft says hello" }]);
  } finally {
    await artifacts.close();
  }
});
