import type { ArtifactErrorCode } from "../../errors.js";
import { isArtifactError } from "../../errors.js";
import type { ArtifactService, RequestOptions } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
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

function everyOperation(service: ArtifactService, options: RequestOptions) {
  const scope = freshScope("deadline-ops");
  return [
    ["put", () => service.put(scope, NAME, bytes, options)],
    ["get", () => service.get(scope, NAME, options)],
    ["head", () => service.head(scope, NAME, options)],
    ["delete", () => service.delete(scope, NAME, "all", options)],
    ["listNames", () => service.listNames(scope, options)],
    ["listVersions", () => service.listVersions(scope, NAME, options)],
    ["list", () => service.list(scope, options)],
  ] as const;
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
  await expectArtifactError(
    () => service.put(scope, NAME, bytes, { signal: abortedSignal(), timeoutMs: 60_000 }),
    "aborted",
    "put with an aborted signal",
  );
  expectEqual(await readAllNames(service, scope), [], "the aborted put published nothing");
}

/** An expired timeout signal fails with timeout (not aborted) and publishes nothing. */
async function expiredTimeoutRefusesEverything({ service }: LawContext) {
  const signal = await firedTimeoutSignal();
  for (const [op, call] of everyOperation(service, { signal })) {
    await expectArtifactError(call, "timeout", `${op} with an expired AbortSignal.timeout`);
  }
  const scope = freshScope("deadline-expired");
  await expectArtifactError(() => service.put(scope, NAME, bytes, { signal }), "timeout", "put");
  expectEqual(await readAllNames(service, scope), [], "the expired put published nothing");
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

export const deadlineLaws = [
  check(
    "deadlines",
    "an already-aborted signal fails every operation with aborted and writes nothing",
    abortedSignalRefusesEverything,
  ),
  check(
    "deadlines",
    "an expired timeout signal fails with timeout (not aborted) and publishes nothing",
    expiredTimeoutRefusesEverything,
  ),
  check(
    "deadlines",
    "puts racing a 1 ms timeout or an abort are all-or-nothing",
    racingDeadlinesAreAllOrNothing,
  ),
];
