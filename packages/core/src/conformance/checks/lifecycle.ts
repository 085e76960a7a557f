import { isDeepStrictEqual } from "node:util";
import { VALIDATION_LIMITS } from "../../limits.js";
import { hasTransfer } from "../../transfer.js";
import type { ArtifactService, Capabilities, Scope } from "../../types.js";
import { COLLIDING_NAMES, COLLIDING_SCOPES, freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

function expectCapabilities(capabilities: Capabilities): void {
  expectTrue(isDeepFrozen(capabilities), "capabilities() is not deeply frozen");
  expectEqual(capabilities.apiVersion, 1, "apiVersion");
  expectEqual(capabilities.immutableVersions, true, "immutableVersions");
  expectTrue(
    capabilities.scopes.length > 0 &&
      capabilities.scopes.every((k) => ["app", "user", "session"].includes(k)),
    "scopes lists scope kinds",
  );
  expectTrue(["volatile", "process", "durable"].includes(capabilities.durability), "durability");
  expectTrue(
    isDeepStrictEqual({ ...capabilities.limits }, { ...VALIDATION_LIMITS }),
    "limits are the shared limits",
  );
  for (const [key, value] of Object.entries(capabilities.pagination)) {
    expectTrue(
      Number.isSafeInteger(value) && value >= 1,
      `pagination.${key} is a positive integer`,
    );
  }
  expectTrue(["global", "per_shard"].includes(capabilities.quotas.appliesTo), "quotas.appliesTo");
  for (const [key, value] of Object.entries(capabilities.quotas.bounds)) {
    expectTrue(
      Number.isSafeInteger(value) && value >= 1,
      `quotas.bounds.${key} is a positive integer`,
    );
  }
  if (capabilities.transfer) {
    for (const [key, value] of Object.entries(capabilities.transfer)) {
      expectTrue(typeof value === "boolean", `transfer.${key} is a boolean`);
    }
  }
}

/** capabilities() is a frozen, well-formed report of the shared limits and bounds. */
async function capabilitiesAreWellFormed({ service }: LawContext) {
  expectCapabilities(service.capabilities());
}

/** After close() every operation, openUpload and openDownload too, fails with closed. */
async function closeRefusesEverything({ service }: LawContext) {
  const scope = freshScope("close");
  const { version } = await service.put(scope, "x", new Uint8Array([1]));
  await service.put(scope, "x/y", new Uint8Array([2]));
  const before = service.capabilities();
  await service.close();
  const calls: [string, () => Promise<unknown>][] = [
    ["put", () => service.put(scope, "x", new Uint8Array([1]))],
    ["get", () => service.get(scope, "x")],
    ["head", () => service.head(scope, "x")],
    ["delete", () => service.delete(scope, "x", "all")],
    ["listNames", () => service.listNames(scope)],
    ["listVersions", () => service.listVersions(scope, "x")],
    ["list", () => service.list(scope)],
    ["listScopes", () => service.listScopes()],
    // Every option and selector an operation takes, each of which an adapter may serve by a
    // path of its own (a prefix scan, a keyed lookup, a pinned read, a bulk delete) that can
    // miss the closed check the plain call makes.
    [
      "put with a key, mimeType and metadata",
      () =>
        service.put(scope, "x", new Uint8Array([1]), {
          idempotencyKey: "k",
          mimeType: "text/plain",
          metadata: { a: 1 },
        }),
    ],
    ["get of a version", () => service.get(scope, "x", { version })],
    ["head of a version", () => service.head(scope, "x", { version })],
    ["delete of a version", () => service.delete(scope, "x", version)],
    ['delete of "latest"', () => service.delete(scope, "x", "latest")],
    ["listNames with a prefix", () => service.listNames(scope, { prefix: "x" })],
    [
      "listNames with a cursor and a limit",
      () => service.listNames(scope, { cursor: "x", limit: 1 }),
    ],
    [
      "listVersions with a cursor and a limit",
      () => service.listVersions(scope, "x", { cursor: version, limit: 1 }),
    ],
    ["listScopes of users", () => service.listScopes({ kind: "user", app: scope.app })],
    [
      "listScopes of sessions",
      () => service.listScopes({ kind: "session", app: scope.app, user: scope.user }),
    ],
    // A closed service refuses before it looks at the arguments: bad ones are closed too.
    ["put of a bad name", () => service.put(scope, "a/../b", new Uint8Array([1]))],
    [
      "put of bad metadata",
      () => service.put(scope, "x", new Uint8Array([1]), { metadata: [] as never }),
    ],
    ["get of a bad version", () => service.get(scope, "x", { version: 0 })],
    ["head of a bad scope", () => service.head({ kind: "app" } as never, "x")],
    ["delete of a bad selector", () => service.delete(scope, "x", "none" as never)],
    ["listNames with a bad limit", () => service.listNames(scope, { limit: 0 })],
    [
      "listVersions with an unknown option",
      () => service.listVersions(scope, "x", { page: 1 } as never),
    ],
    ["list of a bad scope", () => service.list({ kind: "user", app: "a" } as never)],
    ["listScopes of a bad kind", () => service.listScopes({ kind: "team" } as never)],
  ];
  if (hasTransfer(service)) {
    calls.push(["openUpload", () => service.openUpload(scope, "y")]);
    calls.push(["openDownload", () => service.openDownload(scope, "x")]);
    calls.push([
      "openUpload with a key",
      () => service.openUpload(scope, "y", { idempotencyKey: "k" }),
    ]);
    calls.push(["openDownload of a version", () => service.openDownload(scope, "x", { version })]);
    if (before.transfer?.byteRanges) {
      calls.push([
        "openDownload of a range",
        () => service.openDownload(scope, "x", { range: { offset: 0, length: 1 } }),
      ]);
    }
  }
  for (const [op, call] of calls) await expectArtifactError(call, "closed", `${op} after close`);
  await service.close();
  // capabilities() keeps answering after close (a router or a pool reads it to report).
  let after: unknown;
  try {
    after = service.capabilities();
  } catch (error) {
    fail(`capabilities() after close: expected the report, got ${String(error)}`);
  }
  expectEqual(after, before, "capabilities() after close");
}

interface Written {
  scope: Scope;
  name: string;
  versions: number[];
  highWater: number;
}

/** Puts and deletes over colliding scopes and names; returns what must survive. */
async function writeHistory(service: ArtifactService): Promise<Written[]> {
  const written: Written[] = [];
  for (const [i, scope] of COLLIDING_SCOPES.entries()) {
    for (const [j, name] of COLLIDING_NAMES.slice(0, 4 + i).entries()) {
      const versions: number[] = [];
      for (let k = 0; k < 1 + ((i + j) % 3); k++) {
        versions.push(
          (await service.put(scope, name, new Uint8Array([i, j, k]), { metadata: { i, j, k } }))
            .version,
        );
      }
      const highWater = versions.at(-1) ?? 0;
      if ((i + j) % 4 === 1) {
        await service.delete(scope, name, "latest");
        versions.pop();
      } else if ((i + j) % 4 === 2) {
        await service.delete(scope, name, "all");
        versions.length = 0;
      }
      written.push({ scope, name, versions, highWater });
    }
  }
  return written;
}

/** State and every version high-water survive reopen. */
async function stateSurvivesReopen(context: LawContext) {
  if (!context.hooks.reopen) {
    // "process" promises the same across a reopen (only a power cut may lose more).
    const { durability } = context.service.capabilities();
    if (durability !== "volatile") {
      fail(
        `the adapter declares durability '${durability}' but the subject gives no reopen to prove it`,
      );
    }
    return skip("volatile adapter: nothing survives a restart by design");
  }
  const written = await writeHistory(context.service);
  const service = await context.reopen();
  for (const scope of COLLIDING_SCOPES) {
    const expected = written
      .filter((w) => w.scope === scope && w.versions.length > 0)
      .map((w) => w.name);
    expectEqual(
      [...(await readAllNames(service, scope))].sort(),
      [...expected].sort(),
      `names of ${JSON.stringify(scope)} after reopen`,
    );
  }
  for (const w of written) {
    const versions = (await readAllVersions(service, w.scope, w.name)).map((m) => m.version);
    expectEqual(versions, w.versions, `versions of ${JSON.stringify(w.name)} after reopen`);
    for (const version of w.versions) await service.get(w.scope, w.name, { version });
    const next = await service.put(w.scope, w.name, new Uint8Array([9]));
    expectTrue(
      next.version > w.highWater,
      `a put after reopen: version: expected above the high-water ${w.highWater}, got ${next.version}`,
    );
  }
  return undefined;
}

export const lifecycleLaws = [
  check(
    "lifecycle",
    "capabilities() is a frozen, well-formed report of the shared limits and bounds",
    capabilitiesAreWellFormed,
  ),
  check(
    "lifecycle",
    "after close() every operation fails with closed (openUpload and openDownload too, with every option and selector), close() is idempotent, and capabilities() keeps answering",
    closeRefusesEverything,
  ),
  check("durability", "state and every version high-water survive reopen", stateSurvivesReopen),
];
