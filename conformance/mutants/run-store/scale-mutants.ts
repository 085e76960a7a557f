import {
  type ArtifactService,
  quotaExceeded,
  type RunContent,
  type RunStore,
  type RunStoreBounds,
  type RunStoreBoundsOptions,
} from "@artifact-kit/core";
import type { RunStoreConformanceOptions } from "@artifact-kit/core/conformance";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { ArtifactServiceRunStore, InMemoryRunStore } from "@artifact-kit/run-store";
import { ForwardingRunStore } from "./forwarding.js";

// Stores with one bug each that only shows at scale, between two stores on one service, or
// with lookalike ids: every one passed the run-store kit before its scale, domain, two-handle
// and namespace laws (the mutant test checks that too).

type Create = RunStoreConformanceOptions["create"];

/** `artifacts` lists at most 1,024 files of a run. */
class ListsAtMost1024 extends ForwardingRunStore {
  override async artifacts(runId: string) {
    return Object.freeze((await this.inner.artifacts(runId)).slice(0, 1024));
  }
}

/** Counts its runs in a byte: past 255 runs, maxRuns is checked against the count mod 256. */
class RunCountInAByte extends ForwardingRunStore {
  readonly #runs = new Set<string>();
  constructor(
    inner: RunStore,
    readonly maxRuns: number,
  ) {
    super(inner);
  }
  override bounds(): RunStoreBounds {
    return Object.freeze({ ...this.inner.bounds(), maxRuns: this.maxRuns });
  }
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    if (!this.#runs.has(runId) && (this.#runs.size & 0xff) >= this.maxRuns) {
      throw quotaExceeded("max_runs", this.maxRuns, "too many runs");
    }
    await this.inner.register(runId, stepId, path, content);
    this.#runs.add(runId);
  }
  override async remove(runId: string, path: string) {
    await this.inner.remove(runId, path);
    if ((await this.inner.artifacts(runId)).length === 0) this.#runs.delete(runId);
  }
  override async clear(runId: string) {
    await this.inner.clear(runId);
    this.#runs.delete(runId);
  }
}

/** Run ids are normalized to NFC: "café" precomposed and decomposed are one run. */
class NormalizesRunIds extends ForwardingRunStore {
  readonly #nfc = (runId: string) => (typeof runId === "string" ? runId.normalize("NFC") : runId);
  override register(runId: string, stepId: string, path: string, content: RunContent) {
    return this.inner.register(this.#nfc(runId), stepId, path, content);
  }
  override find(runId: string, path: string) {
    return this.inner.find(this.#nfc(runId), path);
  }
  override artifacts(runId: string) {
    return this.inner.artifacts(this.#nfc(runId));
  }
  override remove(runId: string, path: string) {
    return this.inner.remove(this.#nfc(runId), path);
  }
  override clear(runId: string) {
    return this.inner.clear(this.#nfc(runId));
  }
}

/** The service, whose listings stop after their first page. */
function firstPageOnly(service: ArtifactService): ArtifactService {
  return new Proxy(service, {
    get(target, key) {
      if (key === "listNames") {
        return async (...args: Parameters<ArtifactService["listNames"]>) => {
          const { nextCursor: _dropped, ...page } = await target.listNames(...args);
          return page;
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const inMemory =
  (wrap: (store: RunStore, bounds: RunStoreBoundsOptions) => RunStore): Create =>
  async (bounds) => ({ store: wrap(new InMemoryRunStore({ bounds }), bounds) });

/**
 * Service-backed stores over one memory service, the service seen through `wrap`; the
 * sibling under `siblingNamespace` (the default namespace when it is undefined).
 */
export function serviceBacked(
  siblingNamespace: string | undefined,
  wrap: (service: ArtifactService) => ArtifactService = (service) => service,
): Create {
  return async (bounds) => {
    const subject = await memorySubjects().create();
    const service = wrap(subject.service);
    const store = (namespace?: string) =>
      new ArtifactServiceRunStore(service, { bounds, ...(namespace ? { namespace } : {}) });
    return {
      store: store(),
      reopen: async () => store(),
      peer: async () => store(),
      sibling: async () => store(siblingNamespace),
      cleanup: async () => {
        await subject.service.close();
        await subject.cleanup?.();
      },
    };
  };
}

export const SCALE_MUTANTS: Readonly<Record<string, Create>> = {
  "artifacts lists at most 1,024 files": inMemory((store) => new ListsAtMost1024(store)),
  "the run count wraps past 255": async (bounds) => {
    const maxRuns = bounds.maxRuns ?? new InMemoryRunStore().bounds().maxRuns;
    const inner = new InMemoryRunStore({ bounds: { ...bounds, maxRuns: Number.MAX_SAFE_INTEGER } });
    return { store: new RunCountInAByte(inner, maxRuns) };
  },
  "run ids are normalized to NFC": inMemory((store) => new NormalizesRunIds(store)),
  "a reload reads one page of runs and files": serviceBacked("sibling", firstPageOnly),
  "the sibling's namespace is ignored": serviceBacked(undefined),
};
