import type { RunContent, RunStore } from "@artifact-kit/core";
import type { RunStoreConformanceOptions } from "@artifact-kit/core/conformance";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { buildRunStoreMutant, type RunStoreCopy } from "./build.js";
import { ForwardingRunStore } from "./forwarding.js";
import { MEMORY_STORE_PATCHES, SERVICE_STORE_PATCHES } from "./patches.js";

// Issue 31's third batch for run stores: writes seen half done by readers running beside
// them, removes that reach further than their path, contents past a size no law wrote, and
// (patches.ts) reloads, recreated runs, decoding, limits and bounds handed out.

type Create = RunStoreConformanceOptions["create"];

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An upsert writes an empty file first and its content a turn later. */
class TornUpsert extends ForwardingRunStore {
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const present =
      typeof runId === "string" && typeof path === "string"
        ? await this.inner.find(runId, path).catch(() => undefined)
        : undefined;
    if (present !== undefined) {
      await this.inner.register(runId, stepId, path, "");
      await turn();
    }
    await this.inner.register(runId, stepId, path, content);
  }
}

/** clear removes one file per turn: a reader beside it sees the run half cleared. */
class ClearsFileByFile extends ForwardingRunStore {
  override async clear(runId: string) {
    const files = await this.inner.artifacts(runId);
    for (const { path } of files) {
      await this.inner.remove(runId, path);
      await turn();
    }
    await this.inner.clear(runId);
  }
}

/** remove("a") removes "a/..." too, as a directory removal would. */
class RemovesUnderPrefix extends ForwardingRunStore {
  override async remove(runId: string, path: string) {
    await this.inner.remove(runId, path);
    if (typeof runId !== "string" || typeof path !== "string") return;
    for (const entry of await this.inner.artifacts(runId)) {
      if (entry.path.startsWith(`${path}/`)) await this.inner.remove(runId, entry.path);
    }
  }
}

/** Bytes past 1 MiB are lost (one chunk read of a stream). */
class TruncatesPastOneMiB extends ForwardingRunStore {
  override register(runId: string, stepId: string, path: string, content: RunContent) {
    const cut = content instanceof Uint8Array ? content.subarray(0, 1024 * 1024) : content;
    return this.inner.register(runId, stepId, path, cut);
  }
}

/** A register whose content equals the present file's writes nothing: the step id stays. */
class SameContentSkipsWrite extends ForwardingRunStore {
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const present =
      typeof runId === "string" && typeof path === "string"
        ? await this.inner.find(runId, path).catch(() => undefined)
        : undefined;
    const same =
      present !== undefined &&
      typeof present === typeof content &&
      (typeof content === "string"
        ? present === content
        : Buffer.compare(present as Uint8Array, content) === 0);
    if (!same) await this.inner.register(runId, stepId, path, content);
  }
}

/** `find` answers from a cache that register and remove update, but clear forgets to. */
class FindCacheSurvivesClear extends ForwardingRunStore {
  readonly #cache = new Map<string, RunContent | undefined>();
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    await this.inner.register(runId, stepId, path, content);
    this.#cache.delete(JSON.stringify([runId, path]));
  }
  override async remove(runId: string, path: string) {
    await this.inner.remove(runId, path);
    this.#cache.delete(JSON.stringify([runId, path]));
  }
  override async find(runId: string, path: string) {
    const key = JSON.stringify([runId, path]);
    if (this.#cache.has(key)) return this.#cache.get(key);
    const found = await this.inner.find(runId, path);
    this.#cache.set(key, found);
    return found;
  }
}

const wrapped =
  (Mutant: new (inner: RunStore) => RunStore): Create =>
  async (bounds) => ({ store: new Mutant(new InMemoryRunStore({ bounds })) });

/** Stores of a patched copy over one memory service, reopened as a new store over it. */
function serviceBackedCopy(copy: RunStoreCopy): Create {
  return async (bounds) => {
    const subject = await memorySubjects().create();
    const store = (namespace?: string) =>
      new copy.ArtifactServiceRunStore(subject.service, {
        bounds,
        ...(namespace ? { namespace } : {}),
      });
    return {
      store: store(),
      reopen: async () => store(),
      peer: async () => store(),
      sibling: async () => store("sibling"),
      cleanup: async () => {
        await subject.service.close();
        await subject.cleanup?.();
      },
    };
  };
}

/** Both stores of a copy built with no patch: what the mutants are measured against. */
export async function unpatchedRunStores(): Promise<Record<string, Create>> {
  const copy = await buildRunStoreMutant({ slug: "unpatched", bug: "none", patches: [] });
  return {
    "unpatched memory store": async (bounds) => ({ store: new copy.InMemoryRunStore({ bounds }) }),
    "unpatched service store": serviceBackedCopy(copy),
  };
}

/** Every blind-spot mutant, by name: built (patched copies) when first asked for. */
export async function blindSpotRunStores(): Promise<Record<string, Create>> {
  const mutants: Record<string, Create> = {
    "an upsert writes an empty file first": wrapped(TornUpsert),
    "clear removes one file per turn": wrapped(ClearsFileByFile),
    "remove takes the files under its path too": wrapped(RemovesUnderPrefix),
    "bytes past 1 MiB are lost": wrapped(TruncatesPastOneMiB),
    "a register of the same content keeps the old step id": wrapped(SameContentSkipsWrite),
    "find's cache survives a clear": wrapped(FindCacheSurvivesClear),
  };
  for (const spec of SERVICE_STORE_PATCHES) {
    mutants[`service store ${spec.slug}`] = serviceBackedCopy(await buildRunStoreMutant(spec));
  }
  for (const spec of MEMORY_STORE_PATCHES) {
    const copy = await buildRunStoreMutant(spec);
    mutants[`memory store ${spec.slug}`] = async (bounds) => ({
      store: new copy.InMemoryRunStore({ bounds }),
    });
  }
  return mutants;
}
