import { sha256Hex } from "@artifact-kit/core";
import { MemoryEffectJournal, reconcile } from "@artifact-kit/effects";
import {
  type AppendEventRequest,
  type BaseSessionService,
  type Event,
  InMemorySessionService,
  LlmAgent,
  Runner,
} from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdkEffects } from "../src/effects/index.js";
import { ArtifactScopePlugin } from "../src/index.js";
import { SaveArtifactTool } from "./support/artifact-tools.js";
import { codeOf } from "./support/codes.js";
import { ScriptedModel } from "./support/scripted-model.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";

// Journaled tool writes through a real Runner: committed once the event naming them is
// appended; when the append fails, the run fails with effect_pending_reconciliation and the
// reconciler commits or compensates each put by asking the session whether it holds it.

const APP = "notes_app";
const KEY = { appName: APP, userId: "ada", sessionId: "s1" };
const SCOPE = { kind: "session", app: APP, user: "ada", session: "s1" } as const;
const LEASE_MS = 60_000;

type Failure = "none" | "refuse" | "store-then-fail";

/** An in-memory session store whose append of an event carrying artifacts fails as told. */
class FlakySessionService extends InMemorySessionService {
  failure: Failure = "none";

  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    const carriesArtifacts = Object.keys(request.event.actions?.artifactDelta ?? {}).length > 0;
    if (!carriesArtifacts || this.failure === "none") return super.appendEvent(request);
    if (this.failure === "store-then-fail") await super.appendEvent(request);
    throw new Error("the session store went away");
  }
}

let fs: BridgedFs;
let now: number;
let journal: MemoryEffectJournal;
let effects: AdkEffects;
let sessions: FlakySessionService;
beforeEach(async () => {
  fs = await bridgedFs();
  now = Date.now();
  journal = new MemoryEffectJournal({ clock: () => now });
  effects = new AdkEffects(fs.service, { journal, owner: "runtime-1", leaseMs: LEASE_MS });
  sessions = new FlakySessionService();
  await sessions.createSession(KEY);
});
afterEach(async () => {
  await journal.close();
  await fs.service.close();
});

/** One turn: the model asks the tool to save a text artifact, then answers. */
async function saveTurn(sessionService: BaseSessionService): Promise<Event[]> {
  const model = new ScriptedModel([
    {
      call: "save_artifact",
      args: { filename: "report.txt", part: { text: "quarterly figures" } },
    },
    { answer: "saved" },
  ]);
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({ name: "agent", model, tools: [new SaveArtifactTool()] }),
    sessionService,
    artifactService: effects.artifactService(),
    plugins: [new ArtifactScopePlugin()],
  });
  const events: Event[] = [];
  for await (const event of runner.runAsync({
    userId: KEY.userId,
    sessionId: KEY.sessionId,
    newMessage: { role: "user", parts: [{ text: "save it" }] },
  })) {
    events.push(event);
  }
  return events;
}

async function reconcileAll() {
  now += LEASE_MS + 1;
  return reconcile(journal, effects.handler(sessions), {
    owner: "reconciler",
    limit: 10,
    timeBudgetMs: 30_000,
    leaseMs: 30_000,
    retry: { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 },
  });
}

describe("AdkEffects with a real Runner", () => {
  it("journals the tool's put and commits it once its event is appended", async () => {
    const events = await saveTurn(effects.sessionService(sessions));
    expect(events.some((event) => event.actions?.artifactDelta?.["report.txt"] === 0)).toBe(true);
    const [effect, ...others] = await journal.list();
    expect(others).toEqual([]);
    expect(effect).toMatchObject({
      phase: "committed",
      operation: "put",
      scope: SCOPE,
      name: "report.txt",
      receipt: { version: 1, sha256: sha256Hex("quarterly figures") },
      correlation: { app: APP, user: "ada", session: "s1" },
    });
    expect(effect?.correlation?.toolCall).toMatch(/./);
    expect(effect?.correlation?.invocation).toMatch(/./);
    expect((await fs.service.head(SCOPE, "report.txt")).idempotencyKey).toBe(effect?.effectId);
  });

  it("fails the run when the event is refused, and the reconciler deletes the orphan", async () => {
    sessions.failure = "refuse";
    const failed = saveTurn(effects.sessionService(sessions));
    expect(await codeOf(failed)).toBe("effect_pending_reconciliation");
    const [pending] = await journal.list();
    expect(pending?.phase).toBe("applied");
    expect((await fs.service.listVersions(SCOPE, "report.txt")).items).toHaveLength(1);

    const report = await reconcileAll();
    expect(report.settled).toEqual([{ effectId: pending?.effectId, outcome: "compensated" }]);
    expect((await fs.service.listVersions(SCOPE, "report.txt")).items).toEqual([]);
    expect((await journal.get(pending?.effectId ?? ""))?.phase).toBe("compensated");
  });

  it("fails the run when the append's answer is lost, and the reconciler keeps the version the session holds", async () => {
    sessions.failure = "store-then-fail";
    expect(await codeOf(saveTurn(effects.sessionService(sessions)))).toBe(
      "effect_pending_reconciliation",
    );
    const [pending] = await journal.list();
    expect(pending?.phase).toBe("applied");

    const report = await reconcileAll();
    expect(report.settled).toEqual([{ effectId: pending?.effectId, outcome: "committed" }]);
    const kept = await fs.service.head(SCOPE, "report.txt");
    expect(kept).toMatchObject({ version: 1, idempotencyKey: pending?.effectId });
  });

  it("refuses bad options with invalid_argument", () => {
    const attempts = [
      () => new AdkEffects(fs.service, { journal: {} as never, owner: "o", leaseMs: 1 }),
      () => new AdkEffects(fs.service, { journal, owner: "", leaseMs: 1 }),
      () => new AdkEffects(fs.service, { journal, owner: "o", leaseMs: 0 }),
      () => new AdkEffects(fs.service, { journal, owner: "o", leaseMs: 1, maxPending: -1 }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(expect.objectContaining({ code: "invalid_argument" }));
    }
  });
});
