import { describe, expect, it } from "vitest";
import { ARTIFACT_SERVICE_LAWS, artifactServiceChecks } from "../src/conformance/index.js";
import { PendingCalls, SERVICE_SUBJECT_ROLES } from "../src/conformance/pending-calls.js";
import { runStoreChecks } from "../src/conformance/run-store/index.js";
import type { ArtifactService } from "../src/index.js";
import type { RunStore } from "../src/run-store.js";

// Which checks a kit run registers: `only` keeps those whose name contains its text, `omit`
// drops those whose name contains one of its texts. Registering runs nothing.
const create = () => Promise.reject(new Error("not run"));
const names = (options: { only?: string; omit?: readonly string[] }) =>
  artifactServiceChecks({ create, ...options }).map((check) => check.name);

describe("the kit's registration options", () => {
  it("registers every law by default, each once", () => {
    const all = names({});
    expect(all).toHaveLength(ARTIFACT_SERVICE_LAWS.length);
    expect(new Set(all).size).toBe(all.length);
  });

  it("omit leaves out exactly the checks whose name contains one of its texts", () => {
    const all = names({});
    const kept = names({ omit: ["scale: ", "maintenance: "] });
    const dropped = all.filter(
      (name) => name.startsWith("scale: ") || name.startsWith("maintenance: "),
    );
    expect(dropped.length).toBeGreaterThanOrEqual(4);
    expect(kept).toEqual(all.filter((name) => !dropped.includes(name)));
  });

  it("only and omit combine", () => {
    expect(names({ only: "scale: ", omit: ["names"] })).toEqual(
      names({ only: "scale: " }).filter((name) => !name.includes("names")),
    );
    expect(names({ only: "scale: ", omit: ["names"] }).length).toBeGreaterThanOrEqual(1);
  });
});

describe("the kit's per-law limit (testTimeoutMs)", () => {
  it("fails a law that never settles, naming the law, instead of waiting for ever", async () => {
    const [first] = artifactServiceChecks({
      create: () => new Promise<never>(() => {}),
      testTimeoutMs: 50,
    });
    const outcome = await first?.run().then(
      () => "settled",
      (error: unknown) => String(error),
    );
    expect(outcome).toContain(first?.name);
    expect(outcome).toContain("did not settle within 50 ms");
  });

  it("names the service's calls still pending then, with their arguments", async () => {
    // A service whose every call answers nothing, ever: the first law's first call hangs.
    const hanging = new Proxy(
      {},
      {
        get: (_target, property) =>
          property === "then" ? undefined : () => new Promise<never>(() => {}),
      },
    ) as ArtifactService;
    const [first] = artifactServiceChecks({
      create: async () => ({ service: hanging }),
      testTimeoutMs: 50,
    });
    const outcome = await first?.run().then(
      () => "settled",
      (error: unknown) => String(error),
    );
    expect(outcome).toMatch(
      /did not settle within 50 ms: .*; pending: service\.\w+\(.*\), pending for \d+ ms/,
    );
  });
});

describe("PendingCalls", () => {
  class Counter {
    #count = 0;
    bump(): Promise<number> {
      this.#count += 1;
      return Promise.resolve(this.#count);
    }
    hang(_name: string, _data: Uint8Array): Promise<never> {
      return new Promise<never>(() => {});
    }
  }

  it("counts a call while its promise is pending, and runs it on the object itself", async () => {
    const pending = new PendingCalls();
    const counter = pending.watch(new Counter(), "counter");
    expect(await counter.bump()).toBe(1);
    expect(pending.describe()).toMatch(/^no call of a service was pending/);
    void counter.hang("a/b.txt", new Uint8Array(5));
    expect(pending.describe()).toMatch(
      /^counter\.hang\("a\/b\.txt", <5 bytes>\), pending for \d+ ms$/,
    );
  });

  it("hands out a frozen object's methods as they are", () => {
    const frozen = Object.freeze({ get: () => new Promise<never>(() => {}) });
    const pending = new PendingCalls();
    const watched = pending.watch(frozen, "frozen");
    expect(watched.get).toBe(frozen.get);
    void watched.get();
    expect(pending.describe()).toMatch(/^no call/);
  });

  it("watches the services a subject's hooks open, and keeps every other hook", async () => {
    const pending = new PendingCalls();
    const corrupt = async () => {};
    const subject = pending.watchSubject(
      {
        service: new Counter() as unknown as ArtifactService,
        openAnother: async () => new Counter() as unknown as ArtifactService,
        corrupt,
      },
      SERVICE_SUBJECT_ROLES,
    );
    const another = (await subject.openAnother?.()) as unknown as Counter;
    void another.hang("x", new Uint8Array(0));
    expect(pending.describe()).toMatch(/^openAnother\.hang\("x", <0 bytes>\)/);
    expect(subject.corrupt).toBeTypeOf("function");
    expect(subject.reopen).toBeUndefined();
    expect("reopen" in subject).toBe(false);
  });

  it("names a run store's pending call in the run-store kit's report too", async () => {
    const hanging = new Proxy(
      {},
      {
        get: (_target, property) =>
          property === "then" ? undefined : () => new Promise<never>(() => {}),
      },
    ) as RunStore;
    const [first] = runStoreChecks({ create: async () => ({ store: hanging }), testTimeoutMs: 50 });
    const outcome = await first?.run().then(
      () => "settled",
      (error: unknown) => String(error),
    );
    expect(outcome).toMatch(/did not settle within 50 ms: .*; pending: store\.\w+\(/);
  });
});
