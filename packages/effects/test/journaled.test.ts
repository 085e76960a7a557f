import { type ArtifactService, isArtifactError, type Scope } from "@artifact-kit/core";
import {
  artifactEffectHandler,
  type EffectJournal,
  journalArtifacts,
  MemoryEffectJournal,
  reconcile,
} from "@artifact-kit/effects";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { describe, expect, it, vi } from "vitest";

const scope: Scope = { kind: "session", app: "demo", user: "u1", session: "s1" };
const bytes = (text: string) => new TextEncoder().encode(text);
const RETRY = { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 };

function setup() {
  let now = Date.now();
  const journal = new MemoryEffectJournal({ clock: () => now });
  const service = new MemoryArtifactService();
  const advance = (ms: number) => {
    now += ms;
  };
  return { journal, service, advance };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

/** The real service, whose put lands and then reports a backend failure (a lost reply). */
function lostReplies(service: ArtifactService): ArtifactService {
  return new Proxy(service, {
    get(target, key, receiver) {
      if (key === "put") {
        return async (...args: Parameters<ArtifactService["put"]>) => {
          await target.put(...args);
          throw new Error("connection reset after the write");
        };
      }
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The real journal, refusing to record applied effects (a journal outage after the write). */
function failingApplied(journal: EffectJournal): EffectJournal {
  return new Proxy(journal, {
    get(target, key, receiver) {
      if (key === "markApplied") return async () => Promise.reject(new Error("journal disk full"));
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("journaled writes", () => {
  it("put: intent, idempotency key = effect id, applied receipt, commit (idempotent)", async () => {
    const { journal, service } = setup();
    const artifacts = journalArtifacts(service, scope, {
      journal,
      owner: "runtime-1",
      leaseMs: 30_000,
      correlation: { invocation: "inv-1" },
    });
    const written = await artifacts.put("report.txt", bytes("hello"), { mimeType: "text/plain" });
    const meta = await service.head(scope, "report.txt", { version: written.receipt.version });
    expect(meta.idempotencyKey).toBe(written.effectId);
    expect(written.receipt).toEqual({ version: meta.version, sha256: meta.sha256, size: 5 });
    expect(written.effect).toMatchObject({
      operation: "put",
      name: "report.txt",
      mimeType: "text/plain",
    });
    expect(await journal.get(written.effectId)).toMatchObject({
      phase: "applied",
      receipt: written.receipt,
      correlation: { invocation: "inv-1" },
    });
    const [committed] = await artifacts.commit(written.effectId);
    expect(committed?.phase).toBe("committed");
    expect(await artifacts.commit([written.effectId])).toEqual([committed]);
    expect((await journal.get(written.effectId))?.phase).toBe("committed");
    const unknown = await caught(artifacts.commit("never-written"));
    expect(isArtifactError(unknown, "not_found")).toBe(true);
  });

  it("a put the service refuses is not_applied and writes nothing", async () => {
    const { journal, service } = setup();
    const artifacts = journalArtifacts(service, scope, { journal, owner: "w", leaseMs: 30_000 });
    const error = await caught(
      artifacts.put("a.txt", bytes("x"), { effectId: "bad-meta", metadata: { n: Number.NaN } }),
    );
    expect(isArtifactError(error, "invalid_argument")).toBe(true);
    expect((await journal.get("bad-meta"))?.phase).toBe("not_applied");
    expect((await service.listNames(scope)).items).toEqual([]);
    const own = await caught(artifacts.put("a.txt", bytes("x"), { idempotencyKey: "mine" }));
    expect(isArtifactError(own, "invalid_argument")).toBe(true);
  });

  it("a fractional timeout is rounded up; a zero one is timeoutMs, not a lease that ran out", async () => {
    const { journal, service } = setup();
    const artifacts = journalArtifacts(service, scope, { journal, owner: "w", leaseMs: 30_000 });
    // 0.5 ms rounds up to 1 ms and the put is made; within 1 ms it may finish or, on a busy
    // machine, time out, but it is never refused as a zero timeout or a lease that ran out.
    const tight = await artifacts.put("a.txt", bytes("x"), { effectId: "e1", timeoutMs: 0.5 }).then(
      (written) => written.receipt.version,
      (error: unknown) => (isArtifactError(error, "timeout") ? "timeout" : error),
    );
    expect([1, "timeout"]).toContain(tight);
    const roomy = await artifacts.put("c.txt", bytes("z"), { effectId: "e3", timeoutMs: 60_000.5 });
    expect(roomy.receipt.version).toBe(1);
    const error = await caught(
      artifacts.put("b.txt", bytes("y"), { effectId: "e2", timeoutMs: 0 }),
    );
    expect(isArtifactError(error, "invalid_argument") && error.detail).toEqual({
      field: "timeoutMs",
    });
    expect((await journal.get("e2"))?.phase).toBe("not_applied");
  });

  it("a lost reply fails with effect_pending_reconciliation; the reconciler compensates", async () => {
    const { journal, service, advance } = setup();
    const artifacts = journalArtifacts(lostReplies(service), scope, {
      journal,
      owner: "w",
      leaseMs: 1000,
    });
    const error = await caught(artifacts.put("a.txt", bytes("x"), { effectId: "lost" }));
    expect(isArtifactError(error, "effect_pending_reconciliation")).toBe(true);
    expect((error as { detail: { effectId: string } }).detail.effectId).toBe("lost");
    expect((await service.listVersions(scope, "a.txt")).items).toHaveLength(1);
    const handler = artifactEffectHandler(service);
    const options = { owner: "rec", limit: 10, timeBudgetMs: 5000, leaseMs: 1000, retry: RETRY };
    expect((await reconcile(journal, handler, options)).settled).toEqual([]); // lease still held
    advance(1000);
    const report = await reconcile(journal, handler, options);
    expect(report.settled).toEqual([{ effectId: "lost", outcome: "compensated" }]);
    expect(await service.listNames(scope)).toMatchObject({ items: [] });
  });

  it("an unrecordable receipt fails pending; policy commit keeps the version", async () => {
    const { journal, service, advance } = setup();
    const artifacts = journalArtifacts(service, scope, {
      journal: failingApplied(journal),
      owner: "w",
      leaseMs: 1000,
    });
    const error = await caught(artifacts.put("b.txt", bytes("keep"), { effectId: "keep-me" }));
    expect(isArtifactError(error, "effect_pending_reconciliation")).toBe(true);
    advance(1000);
    const decided: string[] = [];
    const handler = artifactEffectHandler(service, {
      decide: (effect) => {
        decided.push(effect.effectId);
        return "commit";
      },
    });
    const report = await reconcile(journal, handler, {
      owner: "rec",
      limit: 10,
      timeBudgetMs: 5000,
      leaseMs: 1000,
      retry: RETRY,
    });
    expect(report.settled).toEqual([{ effectId: "keep-me", outcome: "committed" }]);
    expect(decided).toEqual(["keep-me"]);
    const record = await journal.get("keep-me");
    const meta = await service.head(scope, "b.txt");
    expect(record?.receipt).toEqual({ version: meta.version, sha256: meta.sha256, size: 4 });
  });

  it("delete records its exact target; a writer whose lease was taken cannot commit", async () => {
    const { journal, service, advance } = setup();
    await service.put(scope, "c.txt", bytes("one"));
    const two = await service.put(scope, "c.txt", bytes("two"));
    const artifacts = journalArtifacts(service, scope, { journal, owner: "w", leaseMs: 1000 });
    const removed = await artifacts.delete("c.txt", "latest", { effectId: "del-1" });
    expect(removed.receipt).toEqual({ version: two.version, sha256: two.sha256, size: 3 });
    expect((await journal.get("del-1"))?.target).toEqual(removed.receipt);
    const late = await artifacts.put("c.txt", bytes("three"), { effectId: "late" });
    advance(1000);
    const report = await reconcile(journal, artifactEffectHandler(service), {
      owner: "rec",
      limit: 10,
      timeBudgetMs: 5000,
      leaseMs: 1000,
      retry: RETRY,
    });
    expect(report.settled).toContainEqual({ effectId: "del-1", outcome: "committed" });
    expect(report.settled).toContainEqual({ effectId: "late", outcome: "compensated" });
    const refused = await caught(artifacts.commit(late.effectId));
    expect(isArtifactError(refused, "capability_denied")).toBe(true);
    expect((await journal.get("late"))?.phase).toBe("compensated");
    expect((await service.listVersions(scope, "c.txt")).items.map((meta) => meta.sha256)).toEqual([
      (await service.head(scope, "c.txt", { version: 1 })).sha256,
    ]);
  });
});

describe("reconcile", () => {
  const options = { owner: "rec", limit: 10, timeBudgetMs: 5000, leaseMs: 1000, retry: RETRY };

  it("settles intents that never reached the service as not_applied", async () => {
    const { journal, service, advance } = setup();
    await service.put(scope, "d.txt", bytes("d"));
    const target = await service.head(scope, "d.txt");
    const digest = target.sha256;
    const base = { scope, name: "d.txt", requestDigest: digest };
    await journal.intend(
      { ...base, effectId: "p", operation: "put" },
      { owner: "dead", leaseMs: 10 },
    );
    await journal.intend(
      {
        ...base,
        effectId: "d",
        operation: "delete",
        target: { version: 1, sha256: digest, size: 1 },
      },
      { owner: "dead", leaseMs: 10 },
    );
    advance(10);
    const report = await reconcile(journal, artifactEffectHandler(service), options);
    expect([...report.settled].sort((a, b) => a.effectId.localeCompare(b.effectId))).toEqual([
      { effectId: "d", outcome: "not_applied" },
      { effectId: "p", outcome: "not_applied" },
    ]);
    expect((await service.head(scope, "d.txt")).version).toBe(1);
  });

  it("keeps failures visible, backs off, and gives up after retry.attempts", async () => {
    const { journal, advance } = setup();
    await journal.intend(
      { effectId: "f", operation: "put", scope, name: "f.txt", requestDigest: "0".repeat(64) },
      { owner: "dead", leaseMs: 10 },
    );
    advance(10);
    let calls = 0;
    const broken = {
      async reconcile(): Promise<never> {
        calls++;
        throw new Error("backend unreachable");
      },
    };
    const first = await reconcile(journal, broken, options);
    expect(first.failed).toEqual([
      { effectId: "f", attempts: 1, error: "Error: backend unreachable" },
    ]);
    expect((await reconcile(journal, broken, options)).failed).toEqual([]); // backing off
    advance(100);
    expect((await reconcile(journal, broken, options)).failed).toHaveLength(1);
    advance(200);
    expect((await reconcile(journal, broken, options)).failed).toHaveLength(1);
    advance(10_000);
    expect(await reconcile(journal, broken, options)).toEqual({
      settled: [],
      failed: [],
      deferred: [],
    });
    expect(calls).toBe(3);
    expect(await journal.get("f")).toMatchObject({
      phase: "intended",
      attempts: 3,
      lastError: "Error: backend unreachable",
    });
  });

  it("cuts a slow handler off at the pass's time budget and records it", async () => {
    const { journal, advance } = setup();
    await journal.intend(
      { effectId: "slow", operation: "put", scope, name: "s.txt", requestDigest: "0".repeat(64) },
      { owner: "dead", leaseMs: 10 },
    );
    advance(10);
    let aborted = false;
    let called: () => void = () => {};
    const handlerCalled = new Promise<void>((resolve) => {
      called = resolve;
    });
    const slow = {
      reconcile: (_effect: unknown, signal: AbortSignal) =>
        new Promise<never>(() => {
          called();
          signal.addEventListener("abort", () => {
            aborted = true;
          });
        }),
    };
    // The pass's clock and timers are fake: however slow the machine, no time passes before
    // the handler is called (which would defer the effect instead), and then 50 ms do.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let report: Awaited<ReturnType<typeof reconcile>>;
    try {
      const pass = reconcile(journal, slow, { ...options, timeBudgetMs: 50 });
      await handlerCalled;
      await vi.advanceTimersByTimeAsync(50);
      report = await pass;
    } finally {
      vi.useRealTimers();
    }
    expect(report.failed[0]?.error).toMatch(/longer than/);
    expect(aborted).toBe(true);
    expect((await journal.get("slow"))?.attempts).toBe(1);
  });

  it("refuses bad options", async () => {
    const { journal, service } = setup();
    const handler = artifactEffectHandler(service);
    for (const bad of [
      { ...options, limit: 0 },
      { ...options, timeBudgetMs: 1.5 },
      { ...options, retry: { attempts: 1, backoffMs: 10, maxBackoffMs: 5 } },
      { ...options, owner: "" },
      { ...options, extra: 1 },
    ]) {
      const error = await caught(reconcile(journal, handler, bad));
      expect(isArtifactError(error, "invalid_argument")).toBe(true);
    }
  });
});
