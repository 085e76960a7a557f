import { allScopes } from "../../pages.js";
import type { ArtifactService, JsonObject, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { expectEqual } from "../expect.js";
import type { ModelVersion } from "../model.js";
import {
  expectArtifact,
  expectPlausibleCreatedAt,
  expectRecord,
  readAllNames,
  readAllVersions,
  scribble,
} from "../observe.js";
import { seededBytes } from "../payload.js";

// Nothing a caller holds is shared with the store: not the buffer and metadata it passed to
// put (after put resolves, or while it is still in flight), nor any record a read returned.

const NAME = "aliasing/artifact";
const METADATA: JsonObject = { label: "original", nested: { list: [1, 2, { deep: true }] } };

async function expectStoredUnchanged(
  service: ArtifactService,
  scope: Scope,
  expected: ModelVersion,
  what: string,
) {
  const pinned = { version: expected.version };
  expectArtifact(await service.get(scope, NAME, pinned), scope, NAME, expected, `${what}: get`);
  expectRecord(await service.head(scope, NAME, pinned), scope, NAME, expected, `${what}: head`);
  const listed = (await readAllVersions(service, scope, NAME)).find(
    (meta) => meta.version === expected.version,
  );
  expectRecord(listed as never, scope, NAME, expected, `${what}: listVersions`);
  const record = (await service.list(scope)).find((meta) => meta.version === expected.version);
  expectRecord(record as never, scope, NAME, expected, `${what}: list`);
}

/** Puts `size` bytes; the caller scribbles on what it passed in flight or after. */
async function putAndScribble(
  service: ArtifactService,
  scope: Scope,
  size: number,
  when: "in flight" | "after put resolved",
): Promise<ModelVersion> {
  const data = seededBytes(size, size + 3);
  const sent = data.slice();
  const metadata = structuredClone(METADATA);
  const startedAt = Date.now();
  const pending = service.put(scope, NAME, sent, { mimeType: "text/plain", metadata });
  if (when === "in flight") scribble([sent, metadata]);
  const meta = await pending;
  if (when === "after put resolved") scribble([sent, metadata]);
  const expected = {
    version: meta.version,
    data,
    mimeType: "text/plain",
    metadata: METADATA,
    createdAt: expectPlausibleCreatedAt(meta, startedAt, "put reply"),
  };
  expectRecord(meta, scope, NAME, expected, `put reply (caller scribbled ${when})`);
  return expected;
}

/** The caller's buffer and metadata are copied by put, before it resolves and after. */
async function callerInputsAreCopied({ service }: LawContext) {
  const scope = freshScope("caller-inputs");
  for (const size of [1, 300, 256 * 1024 + 7]) {
    for (const when of ["in flight", "after put resolved"] as const) {
      const expected = await putAndScribble(service, scope, size, when);
      await expectStoredUnchanged(
        service,
        scope,
        expected,
        `${size} bytes, the caller scribbled ${when}`,
      );
    }
  }
}

/** Records returned by put, get, head, listVersions, list, listNames and listScopes are the caller's own. */
async function returnedRecordsAreNotShared({ service }: LawContext) {
  const scope = freshScope("returned-records");
  const first = await putAndScribble(service, scope, 2048, "after put resolved");
  const second = await putAndScribble(service, scope, 10, "after put resolved");
  await service.put(scope, "other", new Uint8Array([1]));
  // Each read gets its own copy of the scope: scribbling on a record that carries the
  // caller's scope object back must not change the scope this law goes on using.
  const reads: [string, () => Promise<unknown>][] = [
    ["put reply", () => service.put({ ...scope }, "other", new Uint8Array([1]), { metadata: {} })],
    ["get latest", () => service.get({ ...scope }, NAME)],
    ["get pinned", () => service.get({ ...scope }, NAME, { version: first.version })],
    ["head latest", () => service.head({ ...scope }, NAME)],
    ["head pinned", () => service.head({ ...scope }, NAME, { version: first.version })],
    ["listVersions", () => service.listVersions({ ...scope }, NAME)],
    ["list", () => service.list({ ...scope })],
    ["listNames", () => service.listNames({ ...scope })],
  ];
  const level = { kind: "session", app: scope.app, user: scope.user } as const;
  reads.push(["listScopes page", () => service.listScopes({ ...level })]);
  for (const [what, read] of reads) {
    for (let time = 0; time < 2; time++) scribble(await read());
    expectEqual(
      await allScopes(service, level),
      [scope],
      `listScopes after scribbling on a ${what}`,
    );
    await expectStoredUnchanged(service, scope, first, `after scribbling on a ${what}`);
    await expectStoredUnchanged(service, scope, second, `after scribbling on a ${what}`);
    expectEqual(
      await readAllNames(service, scope),
      [NAME, "other"],
      `listNames after scribbling on a ${what}`,
    );
  }
}

export const aliasingLaws = [
  check(
    "aliasing",
    "changing the buffer or metadata passed to put, while put is in flight or after it resolved, never changes what is stored",
    callerInputsAreCopied,
  ),
  check(
    "aliasing",
    "records returned by put, get, head, listVersions, list, listNames and listScopes are not shared with the store",
    returnedRecordsAreNotShared,
  ),
];
