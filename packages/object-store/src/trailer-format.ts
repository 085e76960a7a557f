import { corruptArtifact, type Deadline } from "@artifact-kit/core";
import {
  type ManifestExpectation,
  parseStoredManifest,
  type StoredArtifact,
  type StoredManifest,
  storedManifestJson,
} from "@artifact-kit/core/adapter";
import type { ObjectBucket } from "./bucket.js";
import {
  concatBytes,
  type ObjectFormat,
  type PublishedManifest,
  verifiedArtifact,
} from "./format.js";

/**
 * A published object is the data, then a trailer: the manifest as one JSON line and a fixed
 * tail giving that line's length ("0000000123\n"). The trailer goes last because a streamed
 * upload only knows its digest at the end, and S3 parts cannot be prepended; a reader finds
 * it with one suffix-range read.
 */
const LENGTH_DIGITS = 10;
const TAIL_BYTES = LENGTH_DIGITS + 1;
/** The suffix read for a manifest; larger manifests (big metadata, many blocks) take two. */
const MANIFEST_READ_BYTES = 16 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export class TrailerFormat implements ObjectFormat {
  readonly #name: string;

  constructor(name: string) {
    this.#name = name;
  }

  encode(key: string, manifest: StoredManifest, data: Uint8Array) {
    return { key, body: concatBytes(data, this.#trailer(manifest)) };
  }

  around(manifest: StoredManifest) {
    return { tail: this.#trailer(manifest) };
  }

  decode(body: Uint8Array, expected: ManifestExpectation): StoredArtifact {
    const length = manifestLength(body, body.byteLength);
    const dataBytes = body.byteLength - TAIL_BYTES - length;
    const line = body.subarray(dataBytes, dataBytes + length);
    const manifest = this.#parse(line, dataBytes, expected);
    return verifiedArtifact(manifest, body.slice(0, dataBytes));
  }

  /** One suffix-range read (two for a large manifest); the trailer always has the blocks. */
  async readManifest(
    bucket: ObjectBucket,
    deadline: Deadline,
    key: string,
    expected: ManifestExpectation,
  ): Promise<PublishedManifest | undefined> {
    const end = await bucket.get(deadline, key, { suffix: MANIFEST_READ_BYTES });
    if (!end) return undefined;
    const { bytes, objectSize } = end;
    const length = manifestLength(bytes, objectSize);
    const dataBytes = objectSize - TAIL_BYTES - length;
    const line =
      length + TAIL_BYTES <= bytes.byteLength
        ? bytes.subarray(bytes.byteLength - TAIL_BYTES - length, bytes.byteLength - TAIL_BYTES)
        : (await bucket.get(deadline, key, { start: dataBytes, end: objectSize - TAIL_BYTES - 1 }))
            ?.bytes;
    if (!line) return undefined;
    return { manifest: this.#parse(line, dataBytes, expected), dataOffset: 0 };
  }

  #trailer(manifest: StoredManifest): Uint8Array {
    const json = encoder.encode(storedManifestJson(manifest, this.#name));
    const tail = encoder.encode(`${String(json.byteLength).padStart(LENGTH_DIGITS, "0")}\n`);
    const trailer = new Uint8Array(json.byteLength + TAIL_BYTES);
    trailer.set(json);
    trailer.set(tail, json.byteLength);
    return trailer;
  }

  /** Parses a manifest line, checks what it names, and that the data length matches it. */
  #parse(line: Uint8Array, dataBytes: number, expected: ManifestExpectation): StoredManifest {
    let json: string;
    try {
      json = decoder.decode(line);
    } catch (error) {
      throw corruptArtifact("stored manifest is not UTF-8", undefined, error);
    }
    const manifest = parseStoredManifest(json, this.#name, expected);
    if (manifest.size !== dataBytes) {
      throw corruptArtifact(`stored data is ${dataBytes} bytes, manifest says ${manifest.size}`);
    }
    return manifest;
  }
}

/** The length of the manifest line, from the last TAIL_BYTES of an object of `objectSize`. */
function manifestLength(end: Uint8Array, objectSize: number): number {
  const tail = end.subarray(end.byteLength - TAIL_BYTES);
  const text = tail.byteLength === TAIL_BYTES ? new TextDecoder().decode(tail) : "";
  if (!/^[0-9]{10}\n$/.test(text)) throw corruptArtifact("stored object has no manifest tail");
  const length = Number(text.slice(0, LENGTH_DIGITS));
  if (length + TAIL_BYTES > objectSize) {
    throw corruptArtifact("stored object is shorter than its manifest");
  }
  return length;
}
