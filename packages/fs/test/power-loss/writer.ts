import { isArtifactError, type Scope } from "@artifact-kit/core";
import type { FsArtifactService } from "../../src/index.js";
import { payload, SCOPES, type Step } from "./script.js";

/** Acknowledged state: live versions and the highest version acknowledged, per artifact. */
export class Model {
  readonly live = new Map<string, number[]>();
  readonly highWater = new Map<string, number>();
  /** `${key}@${version}` -> the tag of the put that made it. */
  readonly tags = new Map<string, string>();

  versions(key: string): number[] {
    return this.live.get(key) ?? [];
  }

  put(key: string, version: number, tag: string): void {
    this.live.set(key, [...this.versions(key), version]);
    this.highWater.set(key, Math.max(this.highWater.get(key) ?? 0, version));
    this.tags.set(`${key}@${version}`, tag);
  }

  remove(key: string, versions: readonly number[]): void {
    this.live.set(
      key,
      this.versions(key).filter((v) => !versions.includes(v)),
    );
  }
}

export const keyOf = (step: { scope: number; name: string }) => `${step.scope}/${step.name}`;

/** A step with its delete selector resolved against the acknowledged state. */
export type ResolvedStep =
  | Extract<Step, { op: "put" }>
  | (Extract<Step, { op: "delete" }> & { targets: number[]; selected: number | "latest" | "all" });

export interface WriterResult {
  readonly acknowledged: number;
  /** The step the first failure hit (the cut), if any. */
  readonly inFlight?: ResolvedStep;
  readonly error?: unknown;
}

/** Resolves a delete's targets: what it would remove from the acknowledged state. */
function resolveDelete(step: Extract<Step, { op: "delete" }>, model: Model): ResolvedStep {
  const live = model.versions(keyOf(step));
  if (step.selector === "all") return { ...step, targets: live, selected: "all" };
  if (step.selector === "latest") return { ...step, targets: live.slice(-1), selected: "latest" };
  const picked = live[Math.floor(step.pick * live.length)];
  return picked === undefined
    ? { ...step, targets: [], selected: "latest" }
    : { ...step, targets: [picked], selected: picked };
}

/** A whole put's options: its tag, and its key when it has one. */
export function putOptions(step: Extract<Step, { op: "put" }>) {
  return {
    metadata: { tag: step.tag },
    ...(step.key === undefined ? {} : { idempotencyKey: step.key }),
  };
}

async function upload(
  service: FsArtifactService,
  scope: Scope,
  step: Extract<Step, { op: "put" }>,
) {
  const data = payload(step);
  const sink = await service.openUpload(scope, step.name, {
    metadata: { tag: step.tag },
  });
  let at = 0;
  for (const chunk of step.chunks ?? []) {
    await sink.write(data.subarray(at, at + chunk));
    at += chunk;
  }
  return sink.finish();
}

/**
 * Runs the steps in order until one fails (the power cut makes every later call fail),
 * recording each acknowledged step in the model. A delete of nothing is not_found, which
 * the model agrees with: an acknowledged no-op.
 */
export async function runWriter(
  service: FsArtifactService,
  steps: readonly Step[],
  model: Model,
  violations: string[],
  afterStep: () => Promise<void> = async () => {},
): Promise<WriterResult> {
  let acknowledged = 0;
  for (const step of steps) {
    const key = keyOf(step);
    const scope = SCOPES[step.scope];
    if (!scope) throw new Error(`no scope ${step.scope}`);
    const resolved = step.op === "put" ? step : resolveDelete(step, model);
    try {
      if (resolved.op === "put") {
        const meta = resolved.chunks
          ? await upload(service, scope, resolved)
          : await service.put(scope, resolved.name, payload(resolved), putOptions(resolved));
        if (meta.version <= (model.highWater.get(key) ?? 0)) {
          violations.push(`reused: put ${resolved.tag} got version ${meta.version} of ${key}`);
        }
        model.put(key, meta.version, resolved.tag);
      } else {
        try {
          await service.delete(scope, resolved.name, resolved.selected);
        } catch (error) {
          if (
            !(isArtifactError(error) && error.code === "not_found" && resolved.targets.length === 0)
          ) {
            throw error;
          }
        }
        model.remove(key, resolved.targets);
      }
      acknowledged += 1;
      await afterStep();
    } catch (error) {
      return { acknowledged, inFlight: resolved, error };
    }
  }
  return { acknowledged };
}
