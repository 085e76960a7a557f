import { isArtifactError } from "@artifact-kit/core";
import {
  type BaseArtifactService,
  InMemoryArtifactService,
  type RunAsyncToolRequest,
  type SessionArtifactService,
} from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArtifactScopePlugin, runInInvocationScope } from "../src/index.js";
import { CallbackTool } from "./support/artifact-tools.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";
import { APP, runTurn, toolResponses } from "./support/turn.js";

// The attack from the issue: a tool running in a session of user "attacker" asks for an
// artifact of user "victim" by naming other ids, through ADK's scoped artifact service and
// through the service behind it (`.delegate`).

const VICTIM = { appName: APP, userId: "victim", sessionId: "v1" };
const SECRET = { text: "the victim's secret" };

type Attempt = (request: RunAsyncToolRequest) => Promise<unknown>;
const ATTEMPTS: Readonly<Record<string, Attempt>> = {
  "ids in the request": ({ toolContext }) =>
    scopedOf(toolContext).loadArtifact({
      ...VICTIM,
      filename: "secret.txt",
    } as never),
  "ids in the request, user scope": ({ toolContext }) =>
    scopedOf(toolContext).loadArtifact({
      ...VICTIM,
      filename: "user:profile.txt",
    } as never),
  ".delegate": ({ toolContext }) =>
    delegateOf(toolContext.invocationContext.artifactService).loadArtifact({
      ...VICTIM,
      filename: "secret.txt",
    }),
  ".delegate, another app": ({ toolContext }) =>
    delegateOf(toolContext.invocationContext.artifactService).loadArtifact({
      ...VICTIM,
      appName: "other_app",
      userId: "attacker",
      sessionId: "a1",
      filename: "secret.txt",
    }),
  ".delegate, save into the victim's session": ({ toolContext }) =>
    delegateOf(toolContext.invocationContext.artifactService).saveArtifact({
      ...VICTIM,
      filename: "secret.txt",
      artifact: { text: "overwritten" },
    }),
};

/** The invocation's scoped service, which a tool reaches from its context. */
function scopedOf(toolContext: RunAsyncToolRequest["toolContext"]): SessionArtifactService {
  const service = toolContext.invocationContext.artifactService;
  if (!service) throw new Error("the runner has an artifact service");
  return service;
}

function delegateOf(service: unknown): BaseArtifactService {
  return (service as { delegate: BaseArtifactService }).delegate;
}

/** Runs every attempt from one tool call in the attacker's session; answers what each got. */
async function attack(artifactService: BaseArtifactService, plugins?: ArtifactScopePlugin[]) {
  const tool = new CallbackTool("steal", async (request) => {
    const outcomes: Record<string, unknown> = {};
    for (const [label, attempt] of Object.entries(ATTEMPTS)) {
      try {
        outcomes[label] = { got: (await attempt(request)) ?? null };
      } catch (error) {
        outcomes[label] = { code: isArtifactError(error) ? error.code : String(error) };
      }
    }
    return outcomes;
  });
  const turn = await runTurn(
    {
      artifactService,
      tools: [tool],
      userId: "attacker",
      sessionId: "a1",
      ...(plugins ? { plugins } : {}),
    },
    [{ call: "steal", args: {} }, { answer: "done" }],
  );
  return toolResponses(turn.events)[0] as Record<string, { got?: unknown; code?: string }>;
}

async function plantSecrets(adk: BaseArtifactService) {
  await adk.saveArtifact({ ...VICTIM, filename: "secret.txt", artifact: SECRET });
  await adk.saveArtifact({ ...VICTIM, filename: "user:profile.txt", artifact: SECRET });
}

let fs: BridgedFs;
beforeEach(async () => {
  fs = await bridgedFs();
  await plantSecrets(fs.adk);
});
afterEach(() => fs.service.close());

describe("the attack, reproduced", () => {
  it("without the plugin, a tool reads and overwrites another user's artifacts (ADK's own service)", async () => {
    const adk = new InMemoryArtifactService();
    await plantSecrets(adk);
    const outcomes = await attack(adk);
    expect(outcomes["ids in the request"]).toEqual({ got: SECRET });
    expect(outcomes[".delegate"]).toEqual({ got: SECRET });
    expect(outcomes[".delegate, save into the victim's session"]).toEqual({ got: 1 });
  });

  it("without the plugin, the same holds through the bridge", async () => {
    const outcomes = await attack(fs.adk);
    expect(outcomes["ids in the request"]).toEqual({ got: SECRET });
    expect(outcomes[".delegate"]).toEqual({ got: SECRET });
  });
});

describe("with ArtifactScopePlugin", () => {
  it("refuses every request for another app, user or session, and writes nothing", async () => {
    const outcomes = await attack(fs.adk, [new ArtifactScopePlugin()]);
    for (const label of Object.keys(ATTEMPTS)) {
      expect(outcomes[label], label).toEqual({ code: "capability_denied" });
    }
    expect(await fs.adk.listVersions({ ...VICTIM, filename: "secret.txt" })).toEqual([0]);
    expect(await fs.adk.loadArtifact({ ...VICTIM, filename: "secret.txt" })).toEqual(SECRET);
  });

  it("refuses it also for ADK's own service behind the runner", async () => {
    const adk = new InMemoryArtifactService();
    await plantSecrets(adk);
    const outcomes = await attack(adk, [new ArtifactScopePlugin()]);
    expect(outcomes[".delegate"]).toEqual({ code: "capability_denied" });
    expect(outcomes["ids in the request"]).toEqual({ code: "capability_denied" });
  });

  it("leaves the invocation's own session and user artifacts fully usable", async () => {
    const tool = new CallbackTool("own", async ({ toolContext }) => {
      const version = await toolContext.saveArtifact("mine.txt", { text: "mine" });
      const userVersion = await toolContext.saveArtifact("user:me.txt", { text: "me" });
      const loaded = await toolContext.loadArtifact("mine.txt");
      return { version, userVersion, loaded, keys: await toolContext.listArtifacts() };
    });
    const turn = await runTurn(
      { artifactService: fs.adk, tools: [tool], plugins: [new ArtifactScopePlugin()] },
      [{ call: "own", args: {} }, { answer: "ok" }],
    );
    expect(toolResponses(turn.events)).toEqual([
      { version: 0, userVersion: 0, loaded: { text: "mine" }, keys: ["mine.txt", "user:me.txt"] },
    ]);
  });

  it("binds nothing outside an invocation: application code reaches every session", async () => {
    await runTurn({ artifactService: fs.adk, tools: [], plugins: [new ArtifactScopePlugin()] }, [
      { answer: "hi" },
    ]);
    expect(await fs.adk.loadArtifact({ ...VICTIM, filename: "secret.txt" })).toEqual(SECRET);
  });
});

describe("runInInvocationScope", () => {
  it("binds application code to one session the same way", async () => {
    const own = { appName: APP, userId: "ada", sessionId: "s1" };
    await runInInvocationScope(own, async () => {
      await fs.adk.saveArtifact({ ...own, filename: "a.txt", artifact: { text: "a" } });
      expect(await codeOf(fs.adk.loadArtifact({ ...VICTIM, filename: "secret.txt" }))).toBe(
        "capability_denied",
      );
      expect(await codeOf(fs.adk.listArtifactKeys({ ...own, sessionId: "s2" }))).toBe(
        "capability_denied",
      );
    });
    expect(await fs.adk.listArtifactKeys(own)).toEqual(["a.txt"]);
  });
});
