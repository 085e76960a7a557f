import { readFile } from "node:fs/promises";
import * as fsAdapter from "@artifact-kit/fs";
import { InMemorySessionService, LlmAgent, Runner } from "@google/adk";
import { expect, it } from "vitest";
import * as bridge from "../src/index.js";
import { SaveArtifactTool } from "./support/artifact-tools.js";
import { ScriptedModel } from "./support/scripted-model.js";
import { tempRoot } from "./support/subjects.js";

const HEADING = "## Use artifact-kit in your ADK agent";
/** What the example's imports may name: this package (from source) and the fs adapter. */
const MODULES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  "@artifact-kit/adk": bridge,
  "@artifact-kit/fs": fsAdapter,
};

async function readmeExample(): Promise<string[]> {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf(HEADING));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined) throw new Error(`no ts block under "${HEADING}"`);
  return code.trimEnd().split("\n");
}

/** The example's import lines as bindings, each checked to exist in the module it names. */
function importedBindings(lines: readonly string[]): Record<string, unknown> {
  const bindings: Record<string, unknown> = {};
  for (const line of lines.filter((l) => l.startsWith("import "))) {
    const [, names = "", specifier = ""] = /^import \{ (.+) \} from "(.+)";$/.exec(line) ?? [];
    const module = MODULES[specifier];
    if (!module) throw new Error(`the example imports an unexpected module: ${line}`);
    for (const name of names.split(", ")) {
      expect(module, `${specifier} exports ${name}`).toHaveProperty(name);
      bindings[name] = module[name];
    }
  }
  return bindings;
}

type ExampleRun = (
  ...values: unknown[]
) => Promise<{ artifacts: fsAdapter.FsArtifactService; runner: Runner }>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...parameters: string[]
) => ExampleRun;

it("is five lines", async () => {
  expect(await readmeExample()).toHaveLength(5);
});

it("runs as written, and the agent's artifacts land in the fs adapter", async () => {
  const lines = await readmeExample();
  const appName = "readme_app";
  const model = new ScriptedModel([
    { call: "save_artifact", args: { filename: "notes.md", part: { text: "# kept" } } },
    { answer: "saved" },
  ]);
  const agent = new LlmAgent({ name: "readme_agent", model, tools: [new SaveArtifactTool()] });
  const sessionService = new InMemorySessionService();
  // What the example expects the app to have: the names it leaves free.
  const context: Record<string, unknown> = {
    ...importedBindings(lines),
    Runner,
    appName,
    agent,
    sessionService,
    artifactsDir: await tempRoot(),
  };
  const body = `${lines.filter((l) => !l.startsWith("import ")).join("\n")}\nreturn { artifacts, runner };`;
  const { artifacts, runner } = await new AsyncFunction(...Object.keys(context), body)(
    ...Object.values(context),
  );
  try {
    await sessionService.createSession({ appName, userId: "ada", sessionId: "s1" });
    for await (const _event of runner.runAsync({
      userId: "ada",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "take a note" }] },
    })) {
      // The run's effect is checked in the store below.
    }
    const scope = { kind: "session", app: appName, user: "ada", session: "s1" } as const;
    const note = await artifacts.get(scope, "notes.md");
    expect(new TextDecoder().decode(note.data)).toBe("# kept");
  } finally {
    await artifacts.close();
  }
});
