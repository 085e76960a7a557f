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

export const RUN_STORE_MUTANTS: Readonly<Record<string, new (inner: RunStore) => RunStore>> = {
  "upsert moves the entry": UpsertMovesEntry,
  "upsert counted against the count bound": UpsertCountedAgainstCountBound,
  "cross-run leak": CrossRunLeak,
  "remove not idempotent": RemoveNotIdempotent,
  "snapshot mutable": MutableSnapshot,
};
