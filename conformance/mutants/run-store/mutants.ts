import {
  notFound,
  quotaExceeded,
  type RunArtifact,
  type RunContent,
  type RunStore,
} from "@artifact-kit/core";
import { ForwardingRunStore } from "./forwarding.js";

/** An upsert removes the old entry and appends the new one: the file moves to the end. */
export class UpsertMovesEntry extends ForwardingRunStore {
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    if ((await this.inner.find(runId, path)) !== undefined) await this.inner.remove(runId, path);
    await this.inner.register(runId, stepId, path, content);
  }
}

/** An upsert is counted against maxArtifactsPerRun as if it were a new path. */
export class UpsertCountedAgainstCountBound extends ForwardingRunStore {
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const count = (await this.inner.artifacts(runId)).length;
    const { maxArtifactsPerRun } = this.inner.bounds();
    if (count + 1 > maxArtifactsPerRun) {
      throw quotaExceeded("max_artifacts_per_run", maxArtifactsPerRun, "too many files");
    }
    await this.inner.register(runId, stepId, path, content);
  }
}

/** `find` falls back to the same path in any other run it has seen. */
export class CrossRunLeak extends ForwardingRunStore {
  readonly #runIds = new Set<string>();

  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    await this.inner.register(runId, stepId, path, content);
    this.#runIds.add(runId);
  }
  override async find(runId: string, path: string) {
    for (const id of [runId, ...this.#runIds]) {
      const found = await this.inner.find(id, path);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

/** Removing an absent path fails with not_found instead of succeeding. */
export class RemoveNotIdempotent extends ForwardingRunStore {
  override async remove(runId: string, path: string) {
    if ((await this.inner.find(runId, path)) === undefined) throw notFound(`"${path}"`);
    await this.inner.remove(runId, path);
  }
}

/** `artifacts` hands out one live, mutable array per run, refreshed in place on every call. */
export class MutableSnapshot extends ForwardingRunStore {
  readonly #views = new Map<string, RunArtifact[]>();

  override async artifacts(runId: string) {
    const view = this.#views.get(runId) ?? [];
    this.#views.set(runId, view);
    view.splice(
      0,
      view.length,
      ...(await this.inner.artifacts(runId)).map((entry) => ({ ...entry })),
    );
    return view;
  }
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    await this.inner.register(runId, stepId, path, content);
    await this.artifacts(runId);
  }
}

/** Byte usage per run is counted on register and never given back by remove or clear. */
export class RemoveFreesNoBytes extends ForwardingRunStore {
  readonly #used = new Map<string, number>();
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const size =
      typeof content === "string" ? Buffer.byteLength(content) : (content?.byteLength ?? 0);
    const used = (this.#used.get(runId) ?? 0) + size;
    const { maxBytesPerRun } = this.inner.bounds();
    if (typeof runId === "string" && used > maxBytesPerRun) {
      throw quotaExceeded("max_bytes_per_run", maxBytesPerRun, "the run holds too many bytes");
    }
    await this.inner.register(runId, stepId, path, content);
    this.#used.set(runId, used);
  }
}

/** A cleared run keeps its slot against maxRuns. */
export class ClearKeepsRunSlot extends ForwardingRunStore {
  readonly #runs = new Set<string>();
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const { maxRuns } = this.inner.bounds();
    if (!this.#runs.has(runId) && this.#runs.size >= maxRuns) {
      throw quotaExceeded("max_runs", maxRuns, "too many runs");
    }
    await this.inner.register(runId, stepId, path, content);
    this.#runs.add(runId);
  }
}

/** `find` serves the first content ever registered at a path, even after an upsert. */
export class FindServesFirstWrite extends ForwardingRunStore {
  readonly #first = new Map<string, RunContent>();
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    await this.inner.register(runId, stepId, path, content);
    const key = JSON.stringify([runId, path]);
    if (!this.#first.has(key))
      this.#first.set(key, (await this.inner.find(runId, path)) as RunContent);
  }
  override async find(runId: string, path: string) {
    const found = await this.inner.find(runId, path);
    return found === undefined ? found : (this.#first.get(JSON.stringify([runId, path])) ?? found);
  }
}

/** Keeps the caller's bytes by reference and serves them from `find`. */
export class KeepsCallerBytes extends ForwardingRunStore {
  readonly #kept = new Map<string, Uint8Array>();
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    await this.inner.register(runId, stepId, path, content);
    const key = JSON.stringify([runId, path]);
    if (content instanceof Uint8Array) this.#kept.set(key, content);
    else this.#kept.delete(key);
  }
  override async find(runId: string, path: string) {
    const found = await this.inner.find(runId, path);
    return found === undefined ? found : (this.#kept.get(JSON.stringify([runId, path])) ?? found);
  }
}

/** `artifacts` leaves out files with empty content. */
export class HidesEmptyFiles extends ForwardingRunStore {
  override async artifacts(runId: string) {
    return Object.freeze((await this.inner.artifacts(runId)).filter((entry) => entry.size > 0));
  }
}

/** An upsert keeps the step id of the first write. */
export class UpsertKeepsStepId extends ForwardingRunStore {
  override async register(runId: string, stepId: string, path: string, content: RunContent) {
    const present = (await this.inner.artifacts(runId).catch(() => [])).find(
      (e) => e.path === path,
    );
    await this.inner.register(runId, present?.stepId ?? stepId, path, content);
  }
}

/** Reports a text file's size in UTF-16 units instead of UTF-8 bytes. */
export class SizeInUtf16Units extends ForwardingRunStore {
  override async artifacts(runId: string): Promise<readonly RunArtifact[]> {
    const entries = await this.inner.artifacts(runId);
    return Object.freeze(
      entries.map((entry) =>
        Object.freeze(
          typeof entry.content === "string" ? { ...entry, size: entry.content.length } : entry,
        ),
      ),
    );
  }
}

export const RUN_STORE_MUTANTS: Readonly<Record<string, new (inner: RunStore) => RunStore>> = {
  "upsert moves the entry": UpsertMovesEntry,
  "upsert counted against the count bound": UpsertCountedAgainstCountBound,
  "cross-run leak": CrossRunLeak,
  "remove not idempotent": RemoveNotIdempotent,
  "snapshot mutable": MutableSnapshot,
  "remove frees no bytes": RemoveFreesNoBytes,
  "clear keeps the run's slot": ClearKeepsRunSlot,
  "find serves the first write": FindServesFirstWrite,
  "keeps the caller's bytes": KeepsCallerBytes,
  "hides empty files": HidesEmptyFiles,
  "upsert keeps the step id": UpsertKeepsStepId,
  "size in UTF-16 units": SizeInUtf16Units,
};
