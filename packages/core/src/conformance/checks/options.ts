import { isArtifactError } from "../../errors.js";
import { allScopes } from "../../pages.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectEqual, expectTrue, fail } from "../expect.js";
import { readToEnd } from "./transfer-support.js";

// What a call's options and a failed call leave behind (issue 31, fifth round): an option
// spelled `undefined` is one left out; an upload that ends without publishing binds no key;
// an upload's maxBytes is a cap on its data, not room taken from a quota; a write refused
// leaves its scope unlisted.

const NAME = "options/doc";

/** The scope is not listed among its parent's sessions (a session scope no put reached). */
export async function expectScopeUnlisted(service: ArtifactService, scope: Scope, what: string) {
  if (scope.kind !== "session") return;
  const sessions = await allScopes(service, { kind: "session", app: scope.app, user: scope.user });
  expectTrue(
    !sessions.some((listed) => listed.kind === "session" && listed.session === scope.session),
    `${what}: its scope is listed by listScopes, yet it holds no version`,
  );
}

type Call = readonly [what: string, call: () => Promise<unknown>];

/** Every operation with every option it takes given as undefined, beside the same call without them. */
function callsWithUndefinedOptions(service: ArtifactService, scope: Scope): [Call, Call][] {
  // Typed callers cannot spell it (exactOptionalPropertyTypes); JavaScript and spreads do.
  const u = undefined as never;
  const request = { timeoutMs: u, signal: u };
  const data = Uint8Array.of(7);
  const pairs: [Call, Call][] = [
    [
      ["put", () => service.put(scope, NAME, data, { ...request, mimeType: u, metadata: u })],
      ["put", () => service.put(scope, NAME, data)],
    ],
    [
      ["keyed put", () => service.put(scope, NAME, data, { ...request, idempotencyKey: "k" })],
      ["keyed put", () => service.put(scope, NAME, data, { idempotencyKey: "k" })],
    ],
    [
      ["get", () => service.get(scope, NAME, { ...request, version: u })],
      ["get", () => service.get(scope, NAME)],
    ],
    [
      ["head", () => service.head(scope, NAME, { ...request, version: u })],
      ["head", () => service.head(scope, NAME)],
    ],
    [
      ["listNames", () => service.listNames(scope, { ...request, limit: u, cursor: u, prefix: u })],
      ["listNames", () => service.listNames(scope)],
    ],
    [
      [
        "listVersions",
        () => service.listVersions(scope, NAME, { ...request, limit: u, cursor: u }),
      ],
      ["listVersions", () => service.listVersions(scope, NAME)],
    ],
    [
      ["list", () => service.list(scope, request)],
      ["list", () => service.list(scope)],
    ],
    [
      [
        "listScopes",
        () => service.listScopes({ ...request, kind: u, app: u, user: u, cursor: u, limit: u }),
      ],
      ["listScopes", () => service.listScopes()],
    ],
  ];
  if (declaresTransfer(service, "streamingDownload")) {
    const download = (options?: object) =>
      service.openDownload(scope, NAME, options).then(async (source) => ({
        meta: source.meta,
        data: [...(await readToEnd(source))],
      }));
    pairs.push([
      ["openDownload", () => download({ ...request, version: u, range: u })],
      ["openDownload", () => download()],
    ]);
  }
  return pairs;
}

/** An option given as undefined is the option left out, for every operation that takes it. */
async function undefinedOptionsAreLeftOut({ service }: LawContext) {
  const scope = freshScope("undefined-options");
  for (const [[what, spelled], [, plain]] of callsWithUndefinedOptions(service, scope)) {
    let got: unknown;
    try {
      got = await spelled();
    } catch (error) {
      fail(
        `${what} with its options given as undefined: expected the call without them, got ${String(error)}`,
      );
    }
    const expected = await plain();
    if (what === "put") {
      // Each put is a new version: compare what the two say besides their own number and time.
      const strip = (meta: unknown) => ({ ...(meta as object), version: 0, createdAt: 0 });
      expectEqual(strip(got), strip(expected), `${what} with its options given as undefined`);
    } else {
      expectEqual(got, expected, `${what} with its options given as undefined`);
    }
  }
  if (declaresTransfer(service, "streamingUpload")) {
    const u = undefined as never;
    const upload = await service.openUpload(scope, `${NAME}.up`, {
      mimeType: u,
      metadata: u,
      idempotencyKey: u,
      maxBytes: u,
      timeoutMs: u,
      signal: u,
    });
    await upload.write(Uint8Array.of(1));
    const meta = await upload.finish();
    expectEqual(
      [meta.size, meta.metadata],
      [1, {}],
      "an upload with its options given as undefined",
    );
  }
  return undefined;
}

/** An upload aborted, or cancelled by its signal, binds nothing: its key then publishes. */
async function unfinishedUploadsBindNoKey({ transfer: service }: LawContext) {
  const scope = freshScope("unfinished-upload-key");
  const aborted = await service.openUpload(scope, NAME, { idempotencyKey: "aborted" });
  await aborted.write(Uint8Array.of(1, 2));
  await aborted.abort();
  const controller = new AbortController();
  const cancelled = await service.openUpload(scope, NAME, {
    idempotencyKey: "cancelled",
    signal: controller.signal,
  });
  await cancelled.write(Uint8Array.of(3));
  controller.abort();
  await cancelled.finish().then(
    () => fail("an upload whose signal was aborted before finish() published"),
    (error: unknown) =>
      expectTrue(isArtifactError(error), `finish() after the abort: ${String(error)}`),
  );
  for (const key of ["aborted", "cancelled"]) {
    const put = await service
      .put(scope, NAME, Uint8Array.of(9), { idempotencyKey: key })
      .catch((error: unknown) =>
        fail(
          `a put under the key of an upload that ${key === "aborted" ? "was aborted" : "was cancelled"}: expected a new version, got ${String(error)}`,
        ),
      );
    expectEqual(put.idempotencyKey, key, `the put under the ${key} upload's key`);
    const again = await service.openUpload(scope, NAME, { idempotencyKey: `${key}-2` });
    await again.abort();
    const upload = await service.openUpload(scope, NAME, { idempotencyKey: `${key}-2` });
    await upload.write(Uint8Array.of(4));
    expectEqual(
      (await upload.finish()).size,
      1,
      `an upload under the ${key}-2 key after its abort`,
    );
  }
  return undefined;
}

/** An upload's maxBytes caps its data: it takes no room from a quota beyond the bytes it sends. */
async function maxBytesReservesNothing({ transfer: service }: LawContext) {
  const bounds = service.capabilities().quotas.bounds;
  const scopeBytes = bounds.maxScopeBytes;
  if (scopeBytes === undefined) return skip("the adapter declares no maxScopeBytes");
  const size = Math.min(bounds.maxArtifactBytes ?? scopeBytes, scopeBytes, 1024 * 1024);
  const room = 10;
  const fill = scopeBytes - room;
  const puts = Math.ceil(fill / size);
  const artifacts = bounds.maxScopeArtifacts ?? Number.POSITIVE_INFINITY;
  if (puts > 64 || puts + 1 > artifacts || (bounds.maxTotalBytes ?? scopeBytes) < scopeBytes)
    return skip(`maxScopeBytes = ${scopeBytes} is too large to fill in a test; pass createBounded`);
  const scope = freshScope("max-bytes-room");
  for (let left = fill, i = 0; left > 0; left -= size, i++)
    await service.put(scope, `fill/${i}`, new Uint8Array(Math.min(size, left)));
  const upload = await service.openUpload(scope, NAME, { maxBytes: size });
  await upload.write(new Uint8Array(room));
  const meta = await upload
    .finish()
    .catch((error: unknown) =>
      fail(
        `an upload of ${room} bytes into the ${room} left under maxScopeBytes, with maxBytes ${size}: expected it published, got ${String(error)}`,
      ),
    );
  expectEqual(meta.size, room, "the upload that filled the scope exactly");
  return undefined;
}

export const optionLaws = [
  check(
    "validation",
    "an option given as undefined is the option left out, for every operation and every option it takes",
    undefinedOptionsAreLeftOut,
  ),
  check(
    "idempotency",
    "an upload aborted, or cancelled by its signal, binds nothing: a put or upload under its key then publishes",
    unfinishedUploadsBindNoKey,
    { needs: ["streamingUpload"] },
  ),
  check(
    "bounds",
    "an upload's maxBytes caps its data and takes no room from maxScopeBytes: one of the exact room left fits",
    maxBytesReservesNothing,
    { needs: ["bounded", "streamingUpload"] },
  ),
];
