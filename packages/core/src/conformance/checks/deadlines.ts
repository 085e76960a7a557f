import type { ArtifactErrorCode } from "../../errors.js";
import { isArtifactError } from "../../errors.js";
import type { ArtifactService, RequestOptions, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";

const NAME = "deadline";
const bytes = new Uint8Array(1024).fill(7);

function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error("caller went away"));
  return controller.signal;
}

async function firedTimeoutSignal(): Promise<AbortSignal> {
  const signal = AbortSignal.timeout(1);
  while (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 2));
  return signal;
}

/**
 * Every operation, listScopes and the declared transfer parts included, on `scope` (a fresh
 * one by default; one holding NAME, so that a read that finds its artifact is tried too).
 */
function everyOperation(
  service: ArtifactService,
  options: RequestOptions,
  scope: Scope = freshScope("deadline-ops"),
): (readonly [string, () => Promise<unknown>])[] {
  const calls: (readonly [string, () => Promise<unknown>])[] = [
    ["put", () => service.put(scope, NAME, bytes, options)],
    ["get", () => service.get(scope, NAME, options)],
    ["head", () => service.head(scope, NAME, options)],
    ["delete", () => service.delete(scope, NAME, "all", options)],
    ["listNames", () => service.listNames(scope, options)],
    ["listVersions", () => service.listVersions(scope, NAME, options)],
    ["list", () => service.list(scope, options)],
    ["listScopes", () => service.listScopes(options)],
    ["listScopes of users", () => service.listScopes({ ...options, kind: "user", app: scope.app })],
  ];
  if (declaresTransfer(service, "streamingUpload")) {
    calls.push(["openUpload", () => service.openUpload(scope, NAME, options)]);
  }
  if (declaresTransfer(service, "streamingDownload")) {
    calls.push(["openDownload", () => service.openDownload(scope, NAME, options)]);
  }
  if (declaresTransfer(service, "byteRanges")) {
    const range = { offset: 1, length: 1 };
    calls.push([
      "a ranged openDownload",
      () => service.openDownload(scope, NAME, { ...options, range }),
    ]);
  }
  return calls;
}

/** A request that ends in success is visible; one that ends in `code` published nothing. */
async function expectAllOrNothing(
  service: ArtifactService,
  attempts: number,
  start: () => { promise: Promise<unknown> },
  code: ArtifactErrorCode,
  scope: ReturnType<typeof freshScope>,
): Promise<void> {
  const succeeded: number[] = [];
  for (let i = 0; i < attempts; i++) {
    try {
      const meta = (await start().promise) as { version: number };
      succeeded.push(meta.version);
    } catch (error) {
      if (!isArtifactError(error, code))
        fail(`expected success or "${code}", got ${String(error)}`);
    }
  }
  const live = (await readAllVersions(service, scope, NAME)).map((m) => m.version);
  expectEqual(
    live,
    succeeded,
    `only the puts that succeeded are visible (failed ones publish nothing)`,
  );
}

/** An already-aborted signal fails every operation with aborted and writes nothing. */
async function abortedSignalRefusesEverything({ service }: LawContext) {
  const existing = freshScope("deadline-existing");
  await service.put(existing, NAME, bytes);
  for (const [op, call] of everyOperation(service, { signal: abortedSignal() })) {
    await expectArtifactError(call, "aborted", `${op} with an aborted signal`);
  }
  for (const [op, call] of everyOperation(service, { signal: abortedSignal() }, existing)) {
    await expectArtifactError(
      call,
      "aborted",
      `${op} of an existing artifact with an aborted signal`,
    );
  }
  await expectArtifactError(
    () => service.delete(existing, NAME, "all", { signal: abortedSignal() }),
    "aborted",
    "delete with an aborted signal",
  );
  expectEqual(
    (await readAllVersions(service, existing, NAME)).length,
    1,
    "the aborted delete removed nothing",
  );
  const scope = freshScope("deadline-aborted-put");
  const keyed = { idempotencyKey: "aborted" };
  await expectArtifactError(
    () => service.put(scope, NAME, bytes, { ...keyed, signal: abortedSignal(), timeoutMs: 60_000 }),
    "aborted",
    "put with an aborted signal",
  );
  expectEqual(await readAllNames(service, scope), [], "the aborted put published nothing");
  await expectKeyStillFree(service, scope, keyed.idempotencyKey, "the aborted put");
}

/** A keyed put that failed bound nothing: its key publishes the next put, as version 1. */
async function expectKeyStillFree(
  service: ArtifactService,
  scope: Scope,
  idempotencyKey: string,
  what: string,
): Promise<void> {
  const meta = await service.put(scope, NAME, new Uint8Array([9]), { idempotencyKey });
  expectEqual(
    [meta.version, meta.size],
    [1, 1],
    `a put under the key of ${what}, which bound nothing`,
  );
}

/** An expired timeout signal fails with timeout (not aborted) and publishes nothing. */
async function expiredTimeoutRefusesEverything({ service }: LawContext) {
  const signal = await firedTimeoutSignal();
  const existing = freshScope("deadline-expired-existing");
  await service.put(existing, NAME, bytes);
  for (const scope of [freshScope("deadline-ops"), existing]) {
    for (const [op, call] of everyOperation(service, { signal }, scope)) {
      await expectArtifactError(call, "timeout", `${op} with an expired AbortSignal.timeout`);
    }
  }
  const scope = freshScope("deadline-expired");
  const keyed = { idempotencyKey: "expired" };
  await expectArtifactError(
    () => service.put(scope, NAME, bytes, { ...keyed, signal }),
    "timeout",
    "put",
  );
  expectEqual(await readAllNames(service, scope), [], "the expired put published nothing");
  await expectKeyStillFree(service, scope, keyed.idempotencyKey, "the expired put");
}

/** Puts racing a 1 ms timeout or an abort are all-or-nothing. */
async function racingDeadlinesAreAllOrNothing({ service }: LawContext) {
  const large = new Uint8Array(256 * 1024).fill(3);
  const timed = freshScope("deadline-race-timeout");
  await expectAllOrNothing(
    service,
    12,
    () => ({ promise: service.put(timed, NAME, large, { timeoutMs: 1 }) }),
    "timeout",
    timed,
  );
  const aborted = freshScope("deadline-race-abort");
  await expectAllOrNothing(
    service,
    12,
    () => {
      const controller = new AbortController();
      const promise = service.put(aborted, NAME, large, { signal: controller.signal });
      queueMicrotask(() => controller.abort());
      return { promise };
    },
    "aborted",
    aborted,
  );
}

/** What a late cancellation might reach: the name's versions, the scope's names, the key. */
async function lateState(service: ArtifactService, scope: Scope) {
  return {
    versions: (await readAllVersions(service, scope, NAME)).map((meta) => meta.version),
    names: await readAllNames(service, scope),
    keyed: (await service.put(scope, NAME, bytes, { idempotencyKey: "late" })).version,
  };
}

/**
 * A signal aborted, or an upload's abort() called, after the operation settled changes
 * nothing: an adapter that leaves its abort listener (or its rollback) armed past the end
 * of the call would undo an acknowledged write, or redo a delete.
 */
async function lateCancellationChangesNothing({ service }: LawContext) {
  const scope = freshScope("deadline-late");
  const controllers: AbortController[] = [];
  const signal = () => {
    const controller = new AbortController();
    controllers.push(controller);
    return controller.signal;
  };
  await service.put(scope, NAME, bytes, { signal: signal() });
  await service.put(scope, NAME, bytes, { signal: signal(), idempotencyKey: "late" });
  await service.put(scope, NAME, bytes, { timeoutMs: 60_000, signal: signal() });
  await service.put(scope, "deleted", bytes, { signal: signal() });
  await service.delete(scope, "deleted", "all", { signal: signal() });
  await service.delete(scope, NAME, 3, { signal: signal() });
  await service.get(scope, NAME, { signal: signal() });
  await service.listNames(scope, { signal: signal() });
  await service.listScopes({ signal: signal(), kind: "user", app: scope.app });
  const uploads: { abort(reason?: unknown): Promise<void> }[] = [];
  if (declaresTransfer(service, "streamingUpload")) {
    const upload = await service.openUpload(scope, NAME, { signal: signal() });
    await upload.write(bytes);
    await upload.finish();
    uploads.push(upload);
  }
  if (declaresTransfer(service, "streamingDownload")) {
    const source = await service.openDownload(scope, NAME, { signal: signal() });
    while ((await source.read()) !== undefined) {}
  }
  const before = await lateState(service, scope);
  for (const controller of controllers) controller.abort(new Error("too late"));
  // abort() once finish() has resolved has no effect (UploadSink): it may resolve or reject.
  for (const upload of uploads) await upload.abort(new Error("too late")).catch(() => undefined);
  // A rollback started by the abort runs on the adapter's own turns: give them a few.
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  expectEqual(await lateState(service, scope), before, "the store after late cancellations");
}

export const deadlineLaws = [
  check(
    "deadlines",
    "an already-aborted signal fails every operation (listScopes and transfers too, on present and absent artifacts) with aborted and writes nothing; a key it carried stays free",
    abortedSignalRefusesEverything,
  ),
  check(
    "deadlines",
    "an expired timeout signal fails every operation with timeout (not aborted) and publishes nothing; a key it carried stays free",
    expiredTimeoutRefusesEverything,
  ),
  check(
    "deadlines",
    "puts racing a 1 ms timeout or an abort are all-or-nothing",
    racingDeadlinesAreAllOrNothing,
  ),
  check(
    "deadlines",
    "a signal aborted, or an upload's abort() called, after the operation settled changes nothing",
    lateCancellationChangesNothing,
  ),
];
