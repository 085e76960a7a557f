import type { RunArtifact, RunContent, RunStore, RunStoreBounds } from "@artifact-kit/core";

/** Forwards every call to a real run store; each mutant overrides the one thing it breaks. */
export class ForwardingRunStore implements RunStore {
  constructor(protected readonly inner: RunStore) {}

  bounds(): RunStoreBounds {
    return this.inner.bounds();
  }
  register(runId: string, stepId: string, path: string, content: RunContent): Promise<void> {
    return this.inner.register(runId, stepId, path, content);
  }
  find(runId: string, path: string): Promise<RunContent | undefined> {
    return this.inner.find(runId, path);
  }
  artifacts(runId: string): Promise<readonly RunArtifact[]> {
    return this.inner.artifacts(runId);
  }
  remove(runId: string, path: string): Promise<void> {
    return this.inner.remove(runId, path);
  }
  clear(runId: string): Promise<void> {
    return this.inner.clear(runId);
  }
}
