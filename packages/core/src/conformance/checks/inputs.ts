import { createHash } from "node:crypto";
import fc from "fast-check";
import type { ArtifactError } from "../../errors.js";
import {
  DEFAULT_MIME_TYPE,
  MAX_IDEMPOTENCY_KEY_BYTES,
  MAX_METADATA_BYTES,
  MAX_MIME_TYPE_BYTES,
} from "../../limits.js";
import type { ArtifactMeta, ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue } from "../expect.js";
import { byUtf8Bytes } from "../model.js";
import { readAllNames, readAllVersions } from "../observe.js";
import { readToEnd } from "./transfer-support.js";

// Inputs as callers really spell them (issue 31, fourth round). Bytes arrive as any
// Uint8Array: a view at an offset into a larger buffer, a Node Buffer from its shared pool, a
// slice of one; every text field is kept exactly as given (no case folding, trimming or
// re-encoding), its byte bound counted in UTF-8 whatever the characters; and names that a
// path, URL or key encoding would confuse stay apart.

const NAME = "inputs/data.bin";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

type ViewKind = "subarray" | "pooled Buffer" | "Buffer slice";

/** `data` as a view of `kind`, inside a buffer whose other bytes are junk (0xee). */
function viewOf(data: Uint8Array, kind: ViewKind, before: number, after: number): Uint8Array {
  if (kind === "pooled Buffer") return Buffer.from(data);
  const whole =
    kind === "subarray"
      ? new Uint8Array(before + data.byteLength + after)
      : Buffer.alloc(before + data.byteLength + after);
  whole.fill(0xee);
  whole.set(data, before);
  return whole.subarray(before, before + data.byteLength);
}

const viewArb = fc.record({
  data: fc.uint8Array({ maxLength: 2048 }),
  kind: fc.constantFrom<ViewKind>("subarray", "pooled Buffer", "Buffer slice"),
  before: fc.integer({ min: 1, max: 64 }),
  after: fc.nat(64),
  cuts: fc.array(fc.nat(), { maxLength: 3 }),
});

/** The record and the stored bytes are the view's, never its buffer's others. */
async function expectStoredAs(
  service: ArtifactService,
  scope: Scope,
  meta: ArtifactMeta,
  data: Uint8Array,
  what: string,
) {
  expectEqual(
    [meta.size, meta.sha256],
    [data.byteLength, sha256(data)],
    `${what}: size and sha256 of the record`,
  );
  const read = await service.get(scope, NAME, { version: meta.version });
  expectTrue(
    same(read.data, data),
    `${what}: get returned ${read.data.byteLength} other bytes than the view's ${data.byteLength}`,
  );
}

/** Bytes given as any Uint8Array view are stored as the view's bytes, on put and upload. */
async function viewsAreTheirBytes({ service, property }: LawContext) {
  const uploads = declaresTransfer(service, "streamingUpload") ? service : undefined;
  await property(
    [viewArb],
    async ({ data, kind, before, after, cuts }) => {
      const scope = freshScope("inputs-views");
      const what = `${data.byteLength} bytes as a ${kind} at offset ${before}`;
      const view = viewOf(data, kind, before, after);
      const meta = await service.put(scope, NAME, view, { idempotencyKey: "k" });
      await expectStoredAs(service, scope, meta, data, `put of ${what}`);
      // The same bytes in a plain array are the same payload: the key answers the same version.
      const retry = await service.put(scope, NAME, new Uint8Array(data), { idempotencyKey: "k" });
      expectEqual(retry.version, meta.version, `${what}: a keyed retry of the same bytes, plainly`);
      if (!uploads) return;
      const upload = await uploads.openUpload(scope, NAME);
      const edges = [
        ...new Set([0, ...cuts.map((cut) => cut % (data.byteLength + 1)), data.byteLength]),
      ].sort((a, b) => a - b);
      for (let i = 1; i < edges.length; i++) {
        await upload.write(viewOf(data.subarray(edges[i - 1], edges[i]), kind, before, after));
      }
      await expectStoredAs(
        service,
        scope,
        await upload.finish(),
        data,
        `an upload of ${what} in ${edges.length - 1} chunk views`,
      );
    },
    { scale: 0.3, min: 10 },
  );
}

/** Valid MIME types that a normalizing backend would change: case, parameters, spaces, non-ASCII. */
const MIME_TYPES: readonly string[] = [
  "Text/HTML",
  "APPLICATION/JSON",
  "text/plain;charset=UTF-8",
  'text/plain; charset="utf-8"; format=Flowed',
  "multipart/form-data; boundary=----a/b",
  " text/plain ",
  "text/plain\t",
  'x/y; name="résumé 😀"',
  "a/b;c",
  "text/x\u007fy\u0085",
  "vnd.Über/ßpecial",
  `${"x".repeat(MAX_MIME_TYPE_BYTES - 2)}/y`,
];
const mimeTypeTextArb = fc
  .tuple(
    fc.string({ maxLength: 20, unit: "grapheme" }),
    fc.string({ maxLength: 40, unit: "grapheme" }),
  )
  .map(([type, rest]) => `${type}/${rest}`)
  .filter((m) => !/[\r\n\0]/.test(m) && Buffer.byteLength(m) <= MAX_MIME_TYPE_BYTES);

/** A MIME type is stored exactly as given, through put and upload, on every read. */
async function mimeTypesAsGiven({ service, property }: LawContext) {
  const uploads = declaresTransfer(service, "streamingUpload") ? service : undefined;
  const downloads = declaresTransfer(service, "streamingDownload") ? service : undefined;
  const roundTrip = async (mimeType: string) => {
    const scope = freshScope("inputs-mime");
    const what = `mimeType ${JSON.stringify(mimeType)}`;
    const put = await service.put(scope, NAME, Uint8Array.of(1), { mimeType });
    const records: [string, ArtifactMeta | undefined][] = [["put", put]];
    if (uploads) {
      const upload = await uploads.openUpload(scope, NAME, { mimeType });
      await upload.write(Uint8Array.of(2));
      records.push(["upload", await upload.finish()]);
    }
    records.push(
      ["head", await service.head(scope, NAME)],
      ["get", await service.get(scope, NAME)],
    );
    for (const version of await readAllVersions(service, scope, NAME))
      records.push(["listVersions", version]);
    for (const version of await service.list(scope)) records.push(["list", version]);
    if (downloads) {
      const source = await downloads.openDownload(scope, NAME);
      await readToEnd(source);
      records.push(["download", source.meta]);
    }
    for (const [how, meta] of records) expectEqual(meta?.mimeType, mimeType, `${what}: ${how}`);
  };
  // Every listed spelling, then generated ones.
  for (const mimeType of MIME_TYPES) await roundTrip(mimeType);
  await property([mimeTypeTextArb], roundTrip, { scale: 0.1, min: 5 });
}

/** Text of `bytes` UTF-8 bytes of two-, three- and four-byte characters, then ASCII. */
function textOfBytes(bytes: number): string {
  const wide = "é€😀".repeat(Math.floor((bytes - 4) / 9));
  return wide + "a".repeat(bytes - Buffer.byteLength(wide));
}

/** The byte bounds of mimeType, idempotency keys and metadata count UTF-8 bytes, whatever the characters. */
async function textBoundsCountUtf8({ service }: LawContext) {
  const scope = freshScope("inputs-bounds");
  const mimeAt = `${textOfBytes(MAX_MIME_TYPE_BYTES - 2)}/y`;
  const keyAt = textOfBytes(MAX_IDEMPOTENCY_KEY_BYTES);
  // {"k":"..."} is 8 bytes of JSON around the string.
  const metadataAt = { k: textOfBytes(MAX_METADATA_BYTES - 8) };
  expectEqual(
    [
      Buffer.byteLength(mimeAt),
      Buffer.byteLength(keyAt),
      Buffer.byteLength(JSON.stringify(metadataAt)),
    ],
    [MAX_MIME_TYPE_BYTES, MAX_IDEMPOTENCY_KEY_BYTES, MAX_METADATA_BYTES],
    "the kit's own byte counts",
  );
  const meta = await service.put(scope, NAME, Uint8Array.of(1), {
    mimeType: mimeAt,
    idempotencyKey: keyAt,
    metadata: metadataAt,
  });
  const read = await service.head(scope, NAME);
  expectEqual(
    [read.mimeType, read.idempotencyKey, read.metadata],
    [mimeAt, keyAt, metadataAt],
    "each field at its bound in multi-byte characters, read back",
  );
  expectEqual(meta.version, 1, "the put at every bound");
  const over: [string, Record<string, unknown>][] = [
    ["mimeType", { mimeType: `${textOfBytes(MAX_MIME_TYPE_BYTES - 3)}é/y` }],
    ["idempotencyKey", { idempotencyKey: `${textOfBytes(MAX_IDEMPOTENCY_KEY_BYTES - 1)}é` }],
    ["metadata", { metadata: { k: `${textOfBytes(MAX_METADATA_BYTES - 9)}é` } }],
  ];
  for (const [field, options] of over) {
    const text = field === "metadata" ? JSON.stringify(options.metadata) : String(options[field]);
    const bound =
      {
        mimeType: MAX_MIME_TYPE_BYTES,
        idempotencyKey: MAX_IDEMPOTENCY_KEY_BYTES,
        metadata: MAX_METADATA_BYTES,
      }[field] ?? 0;
    expectEqual(
      Buffer.byteLength(text),
      bound + 1,
      `${field} one byte over: the kit's own byte count`,
    );
    const error = await expectArtifactError(
      () => service.put(scope, NAME, Uint8Array.of(2), options),
      "invalid_argument",
      `${field} one UTF-8 byte over its bound`,
    );
    expectEqual(
      (error as ArtifactError).detail.field,
      field,
      `${field} one byte over: detail.field`,
    );
  }
  expectEqual(
    (await readAllVersions(service, scope, NAME)).length,
    1,
    "the refused puts wrote nothing",
  );
}

/** Names a path, URL or key encoding would confuse: each its own artifact. */
const REWRITTEN_NAMES: readonly string[] = [
  "a/b",
  "a\\b",
  "a%2Fb",
  "a%2fb",
  "a%5Cb",
  "a+b",
  "a b",
  "a%20b",
  "a~b",
  "a:b",
  "a|b",
  "a*b",
  "a?b",
  'a"b',
  "a<b>",
  "a#b",
  "a&b=c",
  "a;b",
  "a.b",
  "a..b",
  "a/b.",
  "a/b ",
  "a\u0000b".replace("\u0000", "\u0001"),
  "a\u007fb",
  "a\u2215b",
  "a\uff0fb",
];

/** Names that differ by a character a backend might rewrite are different artifacts. */
async function rewrittenNamesAreDistinct({ service }: LawContext) {
  const scope = freshScope("inputs-rewritten");
  for (const [i, name] of REWRITTEN_NAMES.entries())
    await service.put(scope, name, Uint8Array.of(i));
  const sorted = [...REWRITTEN_NAMES].sort(byUtf8Bytes);
  expectEqual(await readAllNames(service, scope, 7), sorted, "listNames of the names, as written");
  for (const [i, name] of REWRITTEN_NAMES.entries()) {
    const read = await service.get(scope, name);
    expectEqual(
      [read.name, read.version, [...read.data]],
      [name, 1, [i]],
      `get ${JSON.stringify(name)}: its own artifact`,
    );
  }
  for (const name of ["a\\b", "a%2Fb", "a+b"]) await service.delete(scope, name, "all");
  expectEqual(
    await readAllNames(service, scope),
    sorted.filter((name) => !["a\\b", "a%2Fb", "a+b"].includes(name)),
    "deleting three of them leaves the others",
  );
}

/** A name emptied by any delete keeps only its high-water: the next put has its own fields. */
async function emptiedNameKeepsNothing({ service }: LawContext) {
  for (const selector of ["all", "latest", 1] as const) {
    const scope = freshScope("inputs-emptied");
    const old = { mimeType: "text/old", metadata: { old: true }, idempotencyKey: "old" };
    await service.put(scope, NAME, Uint8Array.of(1, 2), old);
    await service.delete(scope, NAME, selector);
    const next = await service.put(scope, NAME, Uint8Array.of(3));
    expectTrue(
      next.version > 1,
      `after delete(${JSON.stringify(selector)}): version ${next.version} reused`,
    );
    const [listed] = await readAllVersions(service, scope, NAME);
    const reads: [string, ArtifactMeta | undefined][] = [
      ["put", next],
      ["head", await service.head(scope, NAME)],
      ["get", await service.get(scope, NAME)],
      ["listVersions", listed],
    ];
    for (const [how, meta] of reads) {
      expectEqual(
        [meta?.version, meta?.size, meta?.mimeType, meta?.metadata, meta?.idempotencyKey],
        [next.version, 1, DEFAULT_MIME_TYPE, {}, undefined],
        `a put without mimeType, metadata or key after delete(${JSON.stringify(selector)}) emptied the name: ${how}`,
      );
    }
  }
}

export const inputLaws = [
  check(
    "state",
    "a name emptied by any delete (all, latest, a number) keeps only its high-water: the next put without mimeType, metadata or key has the defaults on every read",
    emptiedNameKeepsNothing,
  ),
  check(
    "values",
    "bytes given as any Uint8Array view (a subarray at an offset, a pooled Node Buffer, a Buffer slice) are stored as the view's bytes, by put and by upload chunks, and are the same payload as a plain copy",
    viewsAreTheirBytes,
  ),
  check(
    "values",
    "a mimeType is stored exactly as given (case, parameters, quotes, spaces, non-ASCII, 255 bytes), through put and upload, on every read",
    mimeTypesAsGiven,
  ),
  check(
    "values",
    "mimeType, idempotency keys and metadata are bounded in UTF-8 bytes: exactly the bound in multi-byte characters is accepted, one byte more is invalid_argument",
    textBoundsCountUtf8,
  ),
  check(
    "values",
    "names a path, URL or key encoding would confuse (backslash, percent-escapes, plus, reserved and lookalike slashes) are different artifacts, listed and read as written",
    rewrittenNamesAreDistinct,
  ),
];
