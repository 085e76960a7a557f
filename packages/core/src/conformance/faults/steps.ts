import { inspect } from "node:util";
import { isArtifactError } from "../../errors.js";
import type { ArtifactService, Scope } from "../../types.js";
import { expectEqual, expectTrue, fail } from "../expect.js";
import { digestOfTag, payloadOf, tagOf } from "../linearizable-ops.js";
import { readAllVersions } from "../observe.js";
import type { FaultKind } from "./injection.js";
import type { FaultNameModel } from "./model.js";

// The operations of the fault runs, each checked against the fault model: with a fault
// armed, an operation may fail with unavailable or timeout (and then may or may not have
// taken effect); every other answer, with or without a fault, must be exactly the model's.

export type FaultOp =
  | { readonly kind: "put"; readonly tag: number }
  | { readonly kind: "keyed"; readonly key: string; readonly tag: number }
  | { readonly kind: "delete"; readonly pick: "latest" | "all" | number }
  | { readonly kind: "get" }
  | { readonly kind: "list" };

export interface FaultStep {
  readonly name: string;
  readonly op: FaultOp;
  readonly fault: FaultKind | undefined;
  /** How many of the operation's backend requests pass before the fault. */
  readonly skip: number;
}

/** Keys of the fault runs, each always with its own payload (its retries are exact). */
export const FAULT_KEYS: readonly string[] = Object.freeze(["retry-1", "retry-2"]);
export const keyTag = (key: string) => 200 + FAULT_KEYS.indexOf(key);

/** The failures a fault may cause: the operation may or may not have taken effect. */
export const isFaultFailure = (error: unknown) =>
  isArtifactError(error, "unavailable") || isArtifactError(error, "timeout");

export function describeStep({ name, op, fault, skip }: FaultStep): string {
  const what =
    op.kind === "put"
      ? `put(payload ${op.tag})`
      : op.kind === "keyed"
        ? `put(payload ${op.tag}, idempotencyKey ${JSON.stringify(op.key)})`
        : op.kind === "delete"
          ? `delete(${typeof op.pick === "number" ? `live version #${op.pick}` : op.pick})`
          : op.kind === "get"
            ? "get(latest)"
            : "listVersions()";
  const armed = fault ? ` with ${fault} armed${skip > 0 ? ` after ${skip} requests` : ""}` : "";
  return `${what} on ${JSON.stringify(name)}${armed}`;
}

/** Runs `step`; a failure is tolerated only when a fault was armed, and only as a fault's. */
export async function runFaultStep(
  service: ArtifactService,
  scope: Scope,
  model: FaultNameModel,
  step: FaultStep,
): Promise<void> {
  const what = describeStep(step);
  const attempt = async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await action();
    } catch (error) {
      if (step.fault !== undefined && isFaultFailure(error)) return undefined;
      return fail(`${what}: failed with ${inspect(error)}`);
    }
  };
  const { op, name } = step;
  switch (op.kind) {
    case "put":
    case "keyed":
      return put(service, scope, model, step, what);
    case "delete": {
      const live = [...model.live.keys()].sort((a, b) => a - b);
      const targets =
        op.pick === "all"
          ? live
          : op.pick === "latest"
            ? live.slice(-1)
            : live.slice(op.pick % Math.max(1, live.length)).slice(0, 1);
      const selector = typeof op.pick === "number" ? (targets[0] ?? model.highWater + 1) : op.pick;
      const outcome = await attempt(() =>
        service.delete(scope, name, selector).then(
          () => "deleted" as const,
          (error: unknown) => {
            if (isArtifactError(error, "not_found")) return "not_found" as const;
            throw error;
          },
        ),
      );
      if (outcome === undefined) model.maybeDeleted(targets);
      else if (targets.length === 0) expectEqual(outcome, "not_found", `${what} of nothing live`);
      else {
        expectEqual(outcome, "deleted", `${what} of versions ${targets.join(", ")}`);
        model.deleted(targets);
      }
      return;
    }
    case "get": {
      const latest = model.latest();
      const got = await attempt(() =>
        service.get(scope, name).then(
          (artifact) => [artifact.version, tagOfBytes(artifact.data, what)] as const,
          (error: unknown) => {
            if (isArtifactError(error, "not_found")) return "not_found" as const;
            throw error;
          },
        ),
      );
      if (got === undefined) return;
      const expected = latest === undefined ? "not_found" : [latest, model.live.get(latest)?.tag];
      expectEqual(got, expected, `${what}: [version, payload]`);
      return;
    }
    case "list":
      await attempt(() => resolveName(service, scope, model, what));
  }
}

async function put(
  service: ArtifactService,
  scope: Scope,
  model: FaultNameModel,
  step: FaultStep,
  what: string,
): Promise<void> {
  const { op } = step;
  if (op.kind !== "put" && op.kind !== "keyed") return;
  const key = op.kind === "keyed" ? op.key : undefined;
  const state = key === undefined ? undefined : model.keys.get(key);
  const bound = state && "bound" in state ? state.bound : undefined;
  const options = key === undefined ? {} : { idempotencyKey: key };
  let meta: Awaited<ReturnType<ArtifactService["put"]>> | "not_found";
  try {
    meta = await service.put(scope, step.name, payloadOf(op.tag), options);
  } catch (error) {
    if (bound !== undefined && !model.live.has(bound) && isArtifactError(error, "not_found")) {
      meta = "not_found";
    } else if (step.fault !== undefined && isFaultFailure(error)) {
      if (bound === undefined) model.maybePut(op.tag, key, what);
      return;
    } else return fail(`${what}: failed with ${inspect(error)}`);
  }
  if (bound !== undefined) {
    // A retry under a bound key: the bound version again, or not_found once it was deleted.
    const expected = model.live.has(bound) ? bound : "not_found";
    expectEqual(meta === "not_found" ? meta : meta.version, expected, `${what}: a keyed retry`);
    return;
  }
  if (meta === "not_found") return fail(`${what}: not_found for a put`);
  const floor = state && "maybeAbove" in state ? state.maybeAbove : model.highWater;
  expectTrue(
    meta.version > floor && !model.gone.has(meta.version),
    `${what}: answered version ${meta.version}, not a new version above ${floor}`,
  );
  expectEqual(meta.sha256, digestOfTag(op.tag), `${what}: the reply's sha256`);
  model.acknowledged(meta.version, op.tag, key, what);
}

function tagOfBytes(data: Uint8Array, what: string): number {
  const tag = data[0] ?? 0;
  if (!Buffer.from(data).equals(Buffer.from(payloadOf(tag)))) {
    fail(`${what}: read ${data.byteLength} bytes that are no payload put whole`);
  }
  return tag;
}

/** Reads every version of the name with no fault armed and resolves the model's maybes. */
export async function resolveName(
  service: ArtifactService,
  scope: Scope,
  model: FaultNameModel,
  step: string,
): Promise<void> {
  const listed = await readAllVersions(service, scope, model.name);
  const known = new Set(model.live.keys());
  model.resolve(
    listed.map((meta) => ({
      version: meta.version,
      tag: tagOf(meta.sha256),
      key: meta.idempotencyKey,
    })),
    step,
  );
  // The bytes of each version this read resolved (the others were read when they were put).
  for (const meta of listed.filter((each) => !known.has(each.version))) {
    const artifact = await service.get(scope, model.name, { version: meta.version });
    expectEqual(
      tagOfBytes(artifact.data, step),
      tagOf(meta.sha256),
      `${step}: version ${meta.version}'s bytes`,
    );
  }
}
