import { corruptArtifact, type Deadline, decodeUtf8 } from "@artifact-kit/core";
import {
  type ManifestExpectation,
  parseStoredManifest,
  type StoredArtifact,
  type StoredManifest,
  storedManifestJson,
} from "@artifact-kit/core/adapter";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import {
  concatBytes,
  type ObjectFormat,
  type PublishedManifest,
  verifiedArtifact,
} from "./format.js";
import { headerSafeJson } from "./header-text.js";
import { REQUEST_ID_KEY } from "./request-ids.js";
import { KEYED_FLAG } from "./tombstones.js";

const HEADER_BYTES_KEY = "artifact-kit-header-bytes";
const MANIFEST_KEY = "artifact-kit-manifest";
/** GCS allows 8 KiB of custom metadata; larger manifests are read from the object's header. */
const MAX_INLINE_MANIFEST_BYTES = 6 * 1024;
const NEWLINE = 0x0a;

const encoder = new TextEncoder();

/**
 * A published object is one create-only write: a one-line JSON manifest, "\n", then the data.
 * JSON.stringify escapes every newline inside strings, so the first "\n" ends the manifest.
 * Custom metadata records the writer's request id, the header's length, whether the put was
 * keyed, and the manifest without its block digests when it fits: a listing that carries
 * metadata then reads records with no further request.
 */
export class HeaderFormat implements ObjectFormat {
  readonly #name: string;

  constructor(name: string) {
    this.#name = name;
  }

  encode(key: string, manifest: StoredManifest, data: Uint8Array) {
    const header = this.#header(manifest);
    const metadata = this.#metadata(manifest, header.byteLength);
    return { key, body: concatBytes(header, data), metadata };
  }

  around(manifest: StoredManifest) {
    const head = this.#header(manifest);
    return { head, metadata: this.#metadata(manifest, head.byteLength) };
  }

  decode(body: Uint8Array, expected: ManifestExpectation, key: string): StoredArtifact {
    const newline = body.indexOf(NEWLINE);
    if (newline < 0) throw corruptArtifact("stored object has no manifest line");
    const text = lineText(body.subarray(0, newline), key);
    const manifest = parseStoredManifest(text, this.#name, expected);
    return verifiedArtifact(manifest, body.slice(newline + 1));
  }

  /**
   * From the inline copy when it is there and blocks are not needed (no request beyond the
   * metadata read a listing may have made already), else from a ranged read of the header.
   */
  async readManifest(
    bucket: ObjectBucket,
    deadline: Deadline,
    key: string,
    expected: ManifestExpectation,
    options: { known?: ObjectInfo | undefined; withBlocks: boolean },
  ): Promise<PublishedManifest | undefined> {
    const metadata = options.known?.metadata ?? (await bucket.head(deadline, key))?.metadata;
    if (metadata === undefined) return undefined;
    const headerBytes = Number(metadata[HEADER_BYTES_KEY]);
    if (!Number.isSafeInteger(headerBytes) || headerBytes < 2) {
      throw corruptArtifact(`object ${key} does not record its header length`);
    }
    const inline = options.withBlocks ? undefined : metadata[MANIFEST_KEY];
    const text = inline ?? (await this.#readHeader(bucket, deadline, key, headerBytes));
    if (text === undefined) return undefined;
    return { manifest: parseStoredManifest(text, this.#name, expected), dataOffset: headerBytes };
  }

  async #readHeader(
    bucket: ObjectBucket,
    deadline: Deadline,
    key: string,
    headerBytes: number,
  ): Promise<string | undefined> {
    const header = await bucket.get(deadline, key, { start: 0, end: headerBytes - 1 });
    if (!header) return undefined;
    const text = lineText(header.bytes, key);
    if (!text.endsWith("\n")) throw corruptArtifact(`object ${key} has a broken header`);
    return text.slice(0, -1);
  }

  #header(manifest: StoredManifest): Uint8Array {
    return encoder.encode(`${storedManifestJson(manifest, this.#name)}\n`);
  }

  #metadata(manifest: StoredManifest, headerBytes: number): Record<string, string> {
    const { blocks: _blocks, ...withoutBlocks } = manifest;
    const json = headerSafeJson(storedManifestJson(withoutBlocks, this.#name));
    return {
      [REQUEST_ID_KEY]: manifest.requestId,
      [HEADER_BYTES_KEY]: String(headerBytes),
      ...(manifest.idempotencyKey === undefined ? {} : { [KEYED_FLAG]: "1" }),
      ...(Buffer.byteLength(json) <= MAX_INLINE_MANIFEST_BYTES ? { [MANIFEST_KEY]: json } : {}),
    };
  }
}

/** A manifest line's text; malformed UTF-8 is corruption, never silently replaced. */
export function lineText(bytes: Uint8Array, key: string): string {
  try {
    return decodeUtf8(bytes);
  } catch (error) {
    throw corruptArtifact(`object ${key} has a manifest that is not UTF-8`, undefined, error);
  }
}
