import {
  type ArtifactService,
  type ArtifactTransfer,
  isArtifactError,
  type Scope,
} from "@artifact-kit/core";

/**
 * What a bucket holds, object by object, as a test reads it with the raw SDK: keys relative
 * to the store's prefix, bodies in base64, custom metadata. Bucket formats are compared and
 * restored through it (a bucket written by an earlier release, kept as a test fixture).
 */
export interface BucketDump {
  readonly objects: readonly DumpedObject[];
}

export interface DumpedObject {
  readonly key: string;
  readonly body: string;
  readonly metadata: Readonly<Record<string, string>>;
}

type Service = ArtifactService & ArtifactTransfer;

const user: Scope = { kind: "user", app: "layout", user: "ada" };
const app: Scope = { kind: "app", app: "layout" };
const text = (value: string) => new TextEncoder().encode(value);
/** Two names longer than a full key allows, sharing their truncated key. */
const longNames = ["l".repeat(400), `${"l".repeat(399)}m`];

/**
 * Writes one of everything the object-store protocol puts in a bucket: versions with and
 * without metadata, a keyed put, a deleted version and a deleted keyed version, a streamed
 * upload, long names sharing a truncated key, and a second scope.
 */
export async function writeLayoutScenario(service: Service): Promise<void> {
  await service.put(user, "notes.txt", text("hello"), {
    mimeType: "text/plain",
    metadata: { lang: "en", n: 1, nested: { ok: true } },
  });
  await service.put(user, "notes.txt", text("world"));
  await service.put(user, "notes.txt", text("keyed"), { idempotencyKey: "k1" });
  await service.delete(user, "notes.txt", 2);
  await service.put(user, "gone.bin", text("gone"), { idempotencyKey: "k2" });
  await service.delete(user, "gone.bin", 1);
  const upload = await service.openUpload(user, "streamed.bin", { mimeType: "text/csv" });
  for (const chunk of ["a,b\n", "1,2\n", "3,4\n"]) await upload.write(text(chunk));
  await upload.finish();
  for (const name of longNames) await service.put(user, name, text(name.slice(-1)));
  await service.put(app, "shared.txt", text("app-wide"));
}

/**
 * Everything a client can read of the scenario's bucket, including the answers to keyed
 * retries (one bound to a live version, one to a deleted version) and a ranged download.
 */
export async function observeLayout(service: Service): Promise<unknown> {
  const observed: Record<string, unknown> = {};
  for (const [label, scope] of [
    ["user", user],
    ["app", app],
  ] as const) {
    const { items: names } = await service.listNames(scope);
    const versions: Record<string, unknown> = {};
    for (const name of names) {
      const { items } = await service.listVersions(scope, name);
      versions[name] = await Promise.all(
        items.map(async (meta) => {
          const artifact = await service.get(scope, name, { version: meta.version });
          return { meta, data: new TextDecoder().decode(artifact.data) };
        }),
      );
    }
    observed[label] = { names, versions, list: await service.list(scope) };
  }
  observed.headLatest = await service.head(user, "notes.txt");
  observed.keyedRetry = await service.put(user, "notes.txt", text("keyed"), {
    idempotencyKey: "k1",
  });
  observed.deletedKeyedRetry = await service
    .put(user, "gone.bin", text("gone"), { idempotencyKey: "k2" })
    .then(
      () => "published",
      (error: unknown) => (isArtifactError(error) ? error.code : "not an ArtifactError"),
    );
  const download = await service.openDownload(user, "streamed.bin", {
    range: { offset: 2, length: 7 },
  });
  let downloaded = "";
  for (let piece = await download.read(); piece; piece = await download.read()) {
    downloaded += new TextDecoder().decode(piece);
  }
  observed.rangedDownload = downloaded;
  return observed;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const CREATED_AT = /("createdAt":)([0-9]+)/g;

/**
 * A dump with what differs from run to run (request ids, creation times) blanked out at the
 * same length, so that trailers recording lengths stay the same: two runs of the scenario on
 * one format give equal results, byte for byte.
 */
export function normaliseDump(dump: BucketDump): DumpedObject[] {
  const blank = (value: string) =>
    value
      .replace(UUID, "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
      .replace(CREATED_AT, (_, field: string, digits: string) => field + "0".repeat(digits.length));
  return dump.objects
    .map((object) => ({
      key: object.key,
      body: Buffer.from(
        blank(Buffer.from(object.body, "base64").toString("latin1")),
        "latin1",
      ).toString("base64"),
      metadata: Object.fromEntries(
        Object.entries(object.metadata).map(([key, value]) => [key, blank(value)]),
      ),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
