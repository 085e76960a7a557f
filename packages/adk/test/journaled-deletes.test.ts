import {
  type ArtifactMeta,
  type ArtifactService,
  isArtifactError,
  type Scope,
  sha256Hex,
} from "@artifact-kit/core";
import { type EffectRecord, MemoryEffectJournal, reconcile } from "@artifact-kit/effects";
import { FsArtifactService } from "@artifact-kit/fs";
import { InMemorySessionService } from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdkEffects, type AdkEffectsOptions } from "../src/effects/index.js";
import { ARTIFACT_EFFECTS_KEY, ArtifactScopePlugin } from "../src/index.js";
import { CallbackTool } from "./support/artifact-tools.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs, tempRoot } from "./support/subjects.js";
import { APP, runTurn } from "./support/turn.js";

// Journaled deletes through AdkEffects' bridge: one delete effect per live version, each
// committed once its version is gone (no session event ever names a delete); a delete cut
// short leaves its effect to the reconciler, which judges it by whether the version is gone.

const KEY = { appName: APP, userId: "ada", sessionId: "s1" };
const SESSION = { kind: "session", app: APP, user: "ada", session: "s1" } as const;
const USER = { kind: "user", app: APP, user: "ada" } as const;
const LEASE_MS = 60_000;
const bytes = (text: string) => new TextEncoder().encode(text);

let fs: BridgedFs;
let now: number;
let journal: MemoryEffectJournal;
beforeEach(async () => {
  fs = await bridgedFs();
  now = Date.now();
  journal = new MemoryEffectJournal({ clock: () => now });
});
afterEach(async () => {
  await journal.close();
  await fs.service.close();
});

function adkEffects(
  service: ArtifactService = fs.service,
  extra: Partial<AdkEffectsOptions> = {},
): AdkEffects {
  return new AdkEffects(service, { journal, owner: "runtime-1", leaseMs: LEASE_MS, ...extra });
}

/** Versions of `name` put by another client (not journaled), one per text. */
async function seed(
  scope: Scope,
  name: string,
  texts: readonly string[],
  service: ArtifactService = fs.service,
): Promise<ArtifactMeta[]> {
  const versions: ArtifactMeta[] = [];
  for (const text of texts) versions.push(await service.put(scope, name, bytes(text)));
  return versions;
}

async function liveVersions(scope: Scope, name: string): Promise<number[]> {
  return (await fs.service.listVersions(scope, name)).items.map((meta) => meta.version);
}

const receiptOf = ({ version, sha256, size }: ArtifactMeta) => ({ version, sha256, size });

/** The journal's effects in the order of the versions they target. */
async function effectsByVersion(): Promise<EffectRecord[]> {
  const effects = await journal.list();
  return effects.sort((a, b) => (a.target?.version ?? 0) - (b.target?.version ?? 0));
}

describe("a journaled deleteArtifact", () => {
  it("leaves one committed delete effect per version, correlated with the tool call", async () => {
    const seeded = await seed(USER, "notes.txt", ["one", "two", "three"]);
    const effects = adkEffects();
    const deleter = new CallbackTool("delete_notes", async ({ toolContext }) => {
      await toolContext.invocationContext.artifactService?.deleteArtifact("user:notes.txt");
      return { ok: true };
    });
    const turn = await runTurn(
      {
        artifactService: effects.artifactService(),
        tools: [deleter],
        plugins: [new ArtifactScopePlugin()],
      },
      [{ call: "delete_notes", args: {} }, { answer: "deleted" }],
    );

    expect(await liveVersions(USER, "notes.txt")).toEqual([]);
    const journaled = await effectsByVersion();
    expect(journaled).toHaveLength(seeded.length);
    const toolEvent = turn.events.find((event) => event.customMetadata?.[ARTIFACT_EFFECTS_KEY]);
    const recorded = toolEvent?.customMetadata?.[ARTIFACT_EFFECTS_KEY] as
      | { functionCallId: string; operation: string; version: number }[]
      | undefined;
    const toolCall = recorded?.[0]?.functionCallId;
    expect(toolCall).toMatch(/./);
    journaled.forEach((effect, index) => {
      const target = receiptOf(seeded[index] as ArtifactMeta);
      expect(effect).toMatchObject({
        phase: "committed",
        operation: "delete",
        scope: USER,
        name: "notes.txt",
        target,
        receipt: target,
        correlation: { app: APP, user: "ada", session: "s1", toolCall },
      });
      expect(effect.correlation?.invocation).toMatch(/./);
    });
    expect(journaled[0]?.target?.sha256).toBe(sha256Hex("one"));
    // The tool's event names the same versions, as ADK numbers them.
    expect(recorded?.map(({ operation, version }) => [operation, version])).toEqual([
      ["delete", 0],
      ["delete", 1],
      ["delete", 2],
    ]);
  });

  it("treats a missing filename as done and journals nothing", async () => {
    await adkEffects()
      .artifactService()
      .deleteArtifact({ ...KEY, filename: "absent.txt" });
    expect(await journal.list()).toEqual([]);
  });
});

type CutShort = "refused" | "deleted-then-lost";

/** `service` whose `nth` delete fails once: before deleting, or after (its answer lost). */
function deleteFailsOnce(service: ArtifactService, nth: number, how: CutShort): ArtifactService {
  let calls = 0;
  return new Proxy(service, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "delete") return value.bind(target);
      return async (...args: Parameters<ArtifactService["delete"]>) => {
        calls += 1;
        if (calls !== nth) return target.delete(...args);
        if (how === "deleted-then-lost") await target.delete(...args);
        throw new Error("the store went away");
      };
    },
  });
}

describe("a journaled deleteArtifact cut short", () => {
  const cases: [CutShort, "committed" | "not_applied", number[]][] = [
    ["deleted-then-lost", "committed", [3]],
    ["refused", "not_applied", [2, 3]],
  ];
  it.each(cases)(
    "when the 2nd delete is %s, the reconciler settles its effect %s",
    async (how, outcome, left) => {
      await seed(SESSION, "draft.txt", ["a", "b", "c"]);
      const effects = adkEffects(deleteFailsOnce(fs.service, 2, how));
      const failed = effects.artifactService().deleteArtifact({ ...KEY, filename: "draft.txt" });
      const error = await failed.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(isArtifactError(error, "effect_pending_reconciliation")).toBe(true);

      const [first, pending, ...others] = await effectsByVersion();
      expect(others).toEqual([]);
      expect(first).toMatchObject({ phase: "committed", target: { version: 1 } });
      expect(pending).toMatchObject({ phase: "intended", target: { version: 2 } });
      expect(isArtifactError(error) && error.detail.effectId).toBe(pending?.effectId);
      // Nothing past the failure was touched.
      expect(await liveVersions(SESSION, "draft.txt")).toEqual(left);

      now += LEASE_MS + 1;
      const report = await reconcile(journal, effects.handler(new InMemorySessionService()), {
        owner: "reconciler",
        limit: 10,
        timeBudgetMs: 30_000,
        leaseMs: 30_000,
        retry: { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 },
      });
      expect(report.settled).toEqual([{ effectId: pending?.effectId, outcome }]);
      expect((await journal.get(pending?.effectId ?? ""))?.phase).toBe(outcome);
      expect(await liveVersions(SESSION, "draft.txt")).toEqual(left);
    },
  );
});

describe("the maxDeleteVersions bound", () => {
  it("refuses a name with more live versions with quota_exceeded, deleting nothing", async () => {
    await seed(SESSION, "log.txt", ["1", "2", "3"]);
    const bridge = adkEffects(fs.service, { maxDeleteVersions: 2 }).artifactService();
    const refused = bridge.deleteArtifact({ ...KEY, filename: "log.txt" });
    const error = await refused.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isArtifactError(error, "quota_exceeded")).toBe(true);
    expect(isArtifactError(error) && error.detail).toEqual({
      limit: "max_delete_versions",
      bound: 2,
    });
    expect(await liveVersions(SESSION, "log.txt")).toEqual([1, 2, 3]);
    expect(await journal.list()).toEqual([]);
  });

  it("walks the listing's pages up to the bound, and reads no page past it", async () => {
    const paged = await FsArtifactService.open({ root: await tempRoot(), maxPageLimit: 2 });
    const pagesRead: string[] = [];
    const counted = new Proxy(paged, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "listVersions")
          return typeof value === "function" ? value.bind(target) : value;
        return (...args: Parameters<ArtifactService["listVersions"]>) => {
          pagesRead.push(args[1]);
          return target.listVersions(...args);
        };
      },
    });
    try {
      await seed(SESSION, "four.txt", ["1", "2", "3", "4"], paged);
      await seed(SESSION, "nine.txt", ["1", "2", "3", "4", "5", "6", "7", "8", "9"], paged);
      const bridge = adkEffects(counted, { maxDeleteVersions: 4 }).artifactService();
      await bridge.deleteArtifact({ ...KEY, filename: "four.txt" });
      expect(pagesRead).toEqual(["four.txt", "four.txt"]);
      pagesRead.length = 0;
      expect(await codeOf(bridge.deleteArtifact({ ...KEY, filename: "nine.txt" }))).toBe(
        "quota_exceeded",
      );
      // Pages of 2: the third page passes the bound, and the remaining two are never read.
      expect(pagesRead).toEqual(["nine.txt", "nine.txt", "nine.txt"]);
      expect((await paged.listNames(SESSION)).items).toEqual(["nine.txt"]);
      const journaled = await journal.list();
      expect(journaled.map((effect) => [effect.name, effect.phase])).toEqual(
        Array.from({ length: 4 }, () => ["four.txt", "committed"]),
      );
    } finally {
      await paged.close();
    }
  });

  it("must be a positive integer", () => {
    for (const maxDeleteVersions of [0, -1, 1.5, Number.NaN, "2" as never]) {
      expect(() => adkEffects(fs.service, { maxDeleteVersions })).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });
});
