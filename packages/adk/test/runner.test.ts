import {
  type BaseArtifactService,
  type Event,
  InMemorySessionService,
  LlmAgent,
  LoadArtifactsTool,
  Runner,
} from "@google/adk";
import { describe, expect, it } from "vitest";
import { ReadArtifactTool, SaveArtifactTool } from "./support/artifact-tools.js";
import { ScriptedModel, type ScriptStep } from "./support/scripted-model.js";
import { bridgedFs, SUBJECTS } from "./support/subjects.js";

const APP = "notes_app";
const USER = "ada";
const SESSION = "s1";
const PROFILE_JSON = JSON.stringify({ name: "Ada" });

// A tool saves two versions of a session artifact and one user artifact through ADK's tool
// context, reads them back (latest and version 0), then ADK's LoadArtifactsTool loads two of
// them into the next model request: "profile.json" only exists as "user:profile.json".
const SCRIPT: readonly ScriptStep[] = [
  { call: "save_artifact", args: { filename: "report.txt", part: { text: "first draft" } } },
  { call: "save_artifact", args: { filename: "report.txt", part: { text: "second draft" } } },
  {
    call: "save_artifact",
    args: {
      filename: "user:profile.json",
      part: {
        inlineData: {
          data: Buffer.from(PROFILE_JSON).toString("base64"),
          mimeType: "application/json",
        },
      },
    },
  },
  { call: "read_artifact", args: { filename: "report.txt" } },
  { call: "read_artifact", args: { filename: "report.txt", version: 0 } },
  { call: "read_artifact", args: { filename: "missing.txt" } },
  { call: "load_artifacts", args: { artifact_names: ["report.txt", "profile.json"] } },
  { answer: "done" },
];

interface ScenarioRun {
  readonly events: Event[];
  readonly model: ScriptedModel;
}

async function runScenario(artifactService: BaseArtifactService): Promise<ScenarioRun> {
  const model = new ScriptedModel(SCRIPT);
  const agent = new LlmAgent({
    name: "notes_agent",
    model,
    tools: [new SaveArtifactTool(), new ReadArtifactTool(), new LoadArtifactsTool()],
  });
  const sessionService = new InMemorySessionService();
  await sessionService.createSession({ appName: APP, userId: USER, sessionId: SESSION });
  const runner = new Runner({ appName: APP, agent, sessionService, artifactService });
  const events: Event[] = [];
  for await (const event of runner.runAsync({
    userId: USER,
    sessionId: SESSION,
    newMessage: { role: "user", parts: [{ text: "write the report" }] },
  })) {
    events.push(event);
  }
  return { events, model };
}

function toolResponses(events: readonly Event[]): unknown[] {
  return events.flatMap(
    (event) =>
      event.content?.parts?.flatMap((part) =>
        part.functionResponse ? [part.functionResponse.response] : [],
      ) ?? [],
  );
}

function artifactDeltas(events: readonly Event[]): Record<string, number>[] {
  return events
    .map((event) => event.actions.artifactDelta)
    .filter((delta) => Object.keys(delta).length > 0);
}

describe.each(SUBJECTS)("a real ADK Runner over %s", (_label, create) => {
  it("saves and loads through the tool context, and LoadArtifactsTool fills the next request", async () => {
    const { adk, close } = await create();
    try {
      const { events, model } = await runScenario(adk);

      expect(toolResponses(events)).toEqual([
        { version: 0 },
        { version: 1 },
        { version: 0 },
        { part: { text: "second draft" } },
        { part: { text: "first draft" } },
        { part: null },
        expect.objectContaining({ artifact_names: ["report.txt", "profile.json"] }),
      ]);
      expect(artifactDeltas(events)).toEqual([
        { "report.txt": 0 },
        { "report.txt": 1 },
        { "user:profile.json": 0 },
      ]);

      // The request after load_artifacts lists the keys and carries both artifacts' content.
      const last = model.requests.at(-1);
      expect(last?.config?.systemInstruction).toContain(
        JSON.stringify(["report.txt", "user:profile.json"]),
      );
      expect(last?.contents.slice(-2)).toEqual([
        { role: "user", parts: [{ text: "Artifact report.txt is:" }, { text: "second draft" }] },
        { role: "user", parts: [{ text: "Artifact profile.json is:" }, { text: PROFILE_JSON }] },
      ]);
      expect(events.at(-1)?.content?.parts).toEqual([{ text: "done" }]);

      // The user artifact is visible from the user's other sessions; the session one is not.
      expect(await adk.listArtifactKeys({ appName: APP, userId: USER, sessionId: "s2" })).toEqual([
        "user:profile.json",
      ]);
      expect(
        await adk.listVersions({
          appName: APP,
          userId: USER,
          sessionId: SESSION,
          filename: "report.txt",
        }),
      ).toEqual([0, 1]);
    } finally {
      await close();
    }
  });
});

describe("the same run, read straight from the fs adapter", () => {
  it("stores the session artifact in the session scope and the user one without its prefix", async () => {
    const { adk, service } = await bridgedFs();
    try {
      await runScenario(adk);
      const session = { kind: "session", app: APP, user: USER, session: SESSION } as const;
      const user = { kind: "user", app: APP, user: USER } as const;
      expect((await service.listNames(session)).items).toEqual(["report.txt"]);
      expect((await service.listNames(user)).items).toEqual(["profile.json"]);
      const report = await service.get(session, "report.txt");
      expect([report.version, report.mimeType, new TextDecoder().decode(report.data)]).toEqual([
        2,
        "text/plain",
        "second draft",
      ]);
      const profile = await service.get(user, "profile.json");
      expect([profile.mimeType, new TextDecoder().decode(profile.data)]).toEqual([
        "application/json",
        PROFILE_JSON,
      ]);
    } finally {
      await service.close();
    }
  });
});
