import { hasTransfer } from "../../transfer.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";
import { listedAmong, readAllScopeIds } from "../observe-scopes.js";
import { MAX_PUTS } from "./bounds.js";
import { freshApp } from "./scope-listing.js";
import { NAME, readToEnd, uploadChunks } from "./transfer-support.js";

// A write reaches the store by more than one path (a put, a gated put, a streamed upload; a
// read of latest by get, head or a download) and fails by more than one (a refusal, an
// abort): whatever the path, the store ends in the same state.
// An adapter that keeps an index of names or scopes, a latest pointer or a running total of
// its room updates it in the path it thought of, and forgets the other (issue 31, eighth
// round: every such mutant passed every law before).

/** The views of `scope` show `name` with exactly `versions`, the last of them latest. */
async function expectSeen(
  service: ArtifactService,
  scope: Extract<Scope, { kind: "session" }>,
  versions: readonly number[],
  what: string,
) {
  const top = versions.at(-1);
  expectEqual((await service.head(scope, NAME)).version, top, `${what}: head(latest)`);
  expectEqual((await service.get(scope, NAME)).version, top, `${what}: get(latest)`);
  if (declaresTransfer(service, "streamingDownload") && hasTransfer(service)) {
    const source = await service.openDownload(scope, NAME);
    expectEqual(source.meta.version, top, `${what}: a download of latest`);
    await readToEnd(source);
  }
  expectEqual(
    (await readAllVersions(service, scope, NAME)).map((meta) => meta.version),
    versions,
    `${what}: listVersions`,
  );
  expectEqual(
    (await service.list(scope)).filter((m) => m.name === NAME).map((m) => m.version),
    versions,
    `${what}: list`,
  );
  expectEqual(
    (await readAllNames(service, scope)).includes(NAME),
    true,
    `${what}: listNames lists the name`,
  );
  expectEqual(await listedAmong(service, [scope.app]), [scope.app], `${what}: listScopes of apps`);
  expectEqual(
    await readAllScopeIds(service, { kind: "user", app: scope.app }),
    [scope.user],
    `${what}: listScopes of the app's users`,
  );
  expectEqual(
    await readAllScopeIds(service, { kind: "session", app: scope.app, user: scope.user }),
    [scope.session],
    `${what}: listScopes of the user's sessions`,
  );
}

/**
 * A version an upload or a put through its publishGate published is seen by every view as a
 * plain put's is: it is latest (also above a put's) to head, get and a download, listed by
 * listVersions and list, its name by listNames and its scope, a new one, at every level of
 * listScopes.
 */
async function everyWritePathIsSeen({ service }: LawContext) {
  const paths: [string, (scope: Scope, data: Uint8Array) => Promise<ArtifactMeta>][] = [
    [
      "a put through its publishGate",
      (scope, data) => service.put(scope, NAME, data, { publishGate: Promise.resolve() }),
    ],
  ];
  if (declaresTransfer(service, "streamingUpload") && hasTransfer(service))
    paths.push(["an upload", (scope, data) => uploadChunks(service, scope, [data])]);
  for (const [what, write] of paths) {
    const scope = {
      kind: "session",
      app: freshApp("write-paths"),
      user: "u",
      session: "s",
    } as const;
    const first = await write(scope, new Uint8Array([1, 2]));
    await expectSeen(service, scope, [first.version], `${what} into a new scope`);
    const put = await service.put(scope, NAME, new Uint8Array([3]));
    const second = await write(scope, new Uint8Array([4]));
    await expectSeen(
      service,
      scope,
      [first.version, put.version, second.version],
      `${what} after a put`,
    );
  }
}

/**
 * Room is what live versions hold: puts refused (invalid metadata, one byte too large, an
 * aborted signal) and uploads aborted take none, however many, so the scope then takes
 * exactly maxScopeBytes of puts, and not one byte more.
 */
async function refusalsTakeNoRoom({ service }: LawContext) {
  const { bounds } = service.capabilities().quotas;
  const room = bounds.maxScopeBytes;
  if (room === undefined) return skip("the adapter declares no maxScopeBytes");
  const size = Math.min(bounds.maxArtifactBytes ?? room, room);
  const fill = Math.ceil(room / size);
  const tighter = Object.entries({
    maxTotalBytes: room,
    maxScopeArtifacts: fill + 1,
    maxTotalArtifacts: fill + 1,
    maxNamesPerScope: fill + 1,
  }).filter(([bound, needed]) => (bounds[bound] ?? Number.POSITIVE_INFINITY) < needed);
  if (tighter.length > 0)
    return skip(`${tighter.map(([b]) => b).join(", ")} would be reached first`);
  if (fill > MAX_PUTS / 4)
    return skip(`maxScopeBytes = ${room} takes too many puts; pass createBounded`);
  const scope = freshScope("room");
  const aborted = AbortSignal.abort();
  // Enough of each that, were any of them charged, the fill below would not fit.
  for (let i = 0; i <= fill; i++) {
    const data = new Uint8Array(size);
    await expectArtifactError(
      () => service.put(scope, "refused", data, { metadata: [] as never }),
      "invalid_argument",
      "a put of bad metadata",
    );
    await expectArtifactError(
      () => service.put(scope, "refused", data, { signal: aborted }),
      "aborted",
      "a put with an aborted signal",
    );
    if (bounds.maxArtifactBytes !== undefined && bounds.maxArtifactBytes < room) {
      await expectArtifactError(
        () => service.put(scope, "refused", new Uint8Array(size + 1)),
        "artifact_too_large",
        "a put one byte over maxArtifactBytes",
      );
    }
    if (declaresTransfer(service, "streamingUpload") && hasTransfer(service)) {
      const upload = await service.openUpload(scope, "aborted");
      await upload.write(data);
      await upload.abort();
    }
  }
  for (let i = 0, left = room; left > 0; i++, left -= size) {
    const bytes = Math.min(size, left);
    await service
      .put(scope, `fill-${i}`, new Uint8Array(bytes))
      .catch((error: unknown) =>
        fail(
          `after ${fill + 1} rounds of refused puts and aborted uploads, a put of ${bytes} bytes with ${left} of maxScopeBytes = ${room} left: expected success, got ${String(error)}`,
        ),
      );
  }
  await expectArtifactError(
    () => service.put(scope, "over", new Uint8Array(1)),
    "quota_exceeded",
    `a put of 1 byte into a scope holding maxScopeBytes = ${room}`,
  );
  return undefined;
}

export const writePathLaws = [
  check(
    "state",
    "a version an upload or a put through its publishGate published is seen as a plain put's: latest (above a put's too) to head, get and a download, in listVersions and list, its name in listNames, its new scope at every level of listScopes",
    everyWritePathIsSeen,
  ),
  check(
    "bounds",
    "puts refused (bad metadata, too large, aborted) and aborted uploads take no room: the scope then takes exactly maxScopeBytes",
    refusalsTakeNoRoom,
    { needs: ["bounded"] },
  ),
];
