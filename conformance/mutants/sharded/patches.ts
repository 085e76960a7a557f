import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the sharded router (packages/sharded/src, built by ../patched/build.ts
// inside the package, whose queue this package does not depend on): one bug each, of classes
// the router kit (@artifact-kit/sharded/conformance) must reject.

export const SHARDED_MUTANTS: readonly PatchedMutantSpec[] = [
  {
    slug: "contract-error-pins-worker",
    bug: "a call that fails (not_found, a bad version) never releases its worker's lease",
    patches: [
      {
        file: "service.ts",
        find: "    try {\n      return await lease.run(operation, call);\n    } finally {\n      lease.release();\n    }",
        replace:
          "    const result = await lease.run(operation, call);\n    lease.release();\n    return result;",
      },
    ],
  },
  {
    slug: "failed-transfer-open-pins-worker",
    bug: "a transfer the worker refuses to open (not_found) keeps its worker's lease",
    patches: [
      {
        file: "service.ts",
        find: "    } catch (error) {\n      lease.release();\n      throw error;\n    }",
        replace: "    } catch (error) {\n      throw error;\n    }",
      },
    ],
  },
  {
    slug: "lists-only-its-own-scopes",
    bug: "exact-scope listScopes asks about the scopes this router opened, never the factory's",
    patches: [
      {
        file: "service.ts",
        find: "const known = this.#factory.scopes ? await this.#factory.scopes() : this.#pool.openedScopes();",
        replace: "const known = this.#pool.openedScopes();",
      },
    ],
  },
  {
    slug: "reclaimed-scopes-unlisted",
    bug: "a reclaimed worker's scope is forgotten: without the factory's scopes(), listScopes drops it",
    patches: [
      {
        file: "pool.ts",
        find: "    this.#workers.delete(worker.key);\n    this.#evictions += 1;",
        replace:
          "    this.#workers.delete(worker.key);\n    this.#openedScopes.delete(worker.key);\n    this.#evictions += 1;",
      },
    ],
  },
  {
    slug: "idle-from-call-start",
    bug: "a worker's idle time counts from when its last call started, not when it ended",
    patches: [
      {
        file: "worker.ts",
        find: "    this.#inFlight += 1;\n    return this;",
        replace: "    this.#inFlight += 1;\n    this.#lastUsed = Date.now();\n    return this;",
      },
      {
        file: "worker.ts",
        find: "    this.#inFlight -= 1;\n    this.#lastUsed = now;",
        replace: "    this.#inFlight -= 1;\n    void now;",
      },
    ],
  },
  {
    slug: "opens-before-the-victim-closed",
    bug: "at capacity the new worker opens while the reclaimed one is still closing",
    patches: [
      {
        file: "pool.ts",
        find: "    await victim?.close();",
        replace: "    void victim?.close();",
      },
    ],
  },
  {
    slug: "idle-timer-not-rearmed",
    bug: "a transfer's idle timer is not armed again after a call: abandoned after one, it pins its worker",
    patches: [
      {
        file: "held-transfer.ts",
        find: "      this.#calls -= 1;\n      this.#armIdleTimer();",
        replace: "      this.#calls -= 1;",
      },
    ],
  },
  {
    slug: "claims-durable",
    bug: "the router declares its workers durable whatever they are",
    patches: [
      {
        file: "service.ts",
        find: "    durability: worker.durability,",
        replace: '    durability: "durable",',
      },
    ],
  },
  {
    slug: "probes-unbounded",
    bug: "exact-scope listScopes probes its candidates all at once, past maxActiveScopes (the bug fixed on 2026-12-03)",
    patches: [
      {
        file: "service.ts",
        find: "new PQueue({ concurrency: this.#config.maxActiveScopes })",
        replace: "new PQueue({ concurrency: Number.POSITIVE_INFINITY })",
      },
    ],
  },
];
