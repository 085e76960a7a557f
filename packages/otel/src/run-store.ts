import type { RunArtifact, RunContent, RunStore, RunStoreBounds } from "@artifact-kit/core";
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_NAME,
  ATTR_RESULT_COUNT,
  ATTR_RUN_ID,
  ATTR_SIZE,
  ATTR_STEP_ID,
} from "./attributes.js";
import { resolveTelemetryOptions, type TelemetryOptions } from "./options.js";
import { setIfDefined } from "./request-attributes.js";
import { Telemetry } from "./telemetry.js";

/**
 * Wraps a run store so that every call is a span (`artifact.run.register`, ...) and feeds the
 * operation metrics, with calls, results and errors passed through unchanged. Run ids follow
 * `recordScopeIds`; paths and step ids follow `recordNames`.
 */
export function withRunStoreTelemetry(store: RunStore, options?: TelemetryOptions): RunStore {
  const resolved = resolveTelemetryOptions(options);
  return new TracedRunStore(
    store,
    new Telemetry(resolved, resolved.adapter ?? store.constructor.name),
  );
}

class TracedRunStore implements RunStore {
  readonly #inner: RunStore;
  readonly #telemetry: Telemetry;

  constructor(inner: RunStore, telemetry: Telemetry) {
    this.#inner = inner;
    this.#telemetry = telemetry;
  }

  bounds(): RunStoreBounds {
    return this.#inner.bounds();
  }

  register(runId: string, stepId: string, path: string, content: RunContent): Promise<void> {
    const size = contentSize(content);
    return this.#telemetry.traced(
      "run.register",
      () => {
        const attributes = this.#target(runId, path);
        setIfDefined(attributes, ATTR_STEP_ID, this.#telemetry.names.record(stepId));
        setIfDefined(attributes, ATTR_SIZE, size);
        return attributes;
      },
      () => this.#inner.register(runId, stepId, path, content),
      () => this.#telemetry.countWritten("run.register", size ?? 0),
    );
  }

  find(runId: string, path: string): Promise<RunContent | undefined> {
    return this.#telemetry.traced(
      "run.find",
      () => this.#target(runId, path),
      () => this.#inner.find(runId, path),
      (content, op) => {
        const size = contentSize(content);
        op.set({ [ATTR_RESULT_COUNT]: size === undefined ? 0 : 1 });
        if (size !== undefined) {
          op.set({ [ATTR_SIZE]: size });
          this.#telemetry.countRead("run.find", size);
        }
      },
    );
  }

  artifacts(runId: string): Promise<readonly RunArtifact[]> {
    return this.#telemetry.traced(
      "run.artifacts",
      () => this.#target(runId),
      () => this.#inner.artifacts(runId),
      (files, op) => {
        const bytes = files.reduce((sum, file) => sum + file.size, 0);
        op.set({ [ATTR_RESULT_COUNT]: files.length, [ATTR_SIZE]: bytes });
        this.#telemetry.countRead("run.artifacts", bytes);
      },
    );
  }

  remove(runId: string, path: string): Promise<void> {
    return this.#telemetry.traced(
      "run.remove",
      () => this.#target(runId, path),
      () => this.#inner.remove(runId, path),
    );
  }

  clear(runId: string): Promise<void> {
    return this.#telemetry.traced(
      "run.clear",
      () => this.#target(runId),
      () => this.#inner.clear(runId),
    );
  }

  #target(runId: unknown, path?: unknown): Attributes {
    const attributes: Attributes = {};
    setIfDefined(attributes, ATTR_RUN_ID, this.#telemetry.scopeIds.record(runId));
    setIfDefined(attributes, ATTR_NAME, this.#telemetry.names.record(path));
    return attributes;
  }
}

/** Bytes of a run file: UTF-8 bytes of text, as the run store measures it. */
function contentSize(content: unknown): number | undefined {
  if (typeof content === "string") return Buffer.byteLength(content, "utf8");
  return content instanceof Uint8Array ? content.byteLength : undefined;
}
