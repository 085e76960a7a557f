import { corruptArtifact, type Deadline, sha256Hex } from "@artifact-kit/core";
import {
  type ManifestExpectation,
  metaOfManifest,
  type StoredArtifact,
  type StoredManifest,
} from "@artifact-kit/core/adapter";
import type { NewObject, ObjectBucket, ObjectInfo, StagedTarget } from "./bucket.js";

/** A published object's manifest, and where its data starts in the object. */
export interface PublishedManifest {
  readonly manifest: StoredManifest;
  readonly dataOffset: number;
}

/** How one dialect lays a manifest and its data out in a published object (see the dialect). */
export interface ObjectFormat {
  /** The object that publishes `data` at `key`, in one create-only write. */
  encode(key: string, manifest: StoredManifest, data: Uint8Array): NewObject;
  /** What a streamed upload's completion puts around the staged data. */
  around(manifest: StoredManifest): Omit<StagedTarget, "key">;
  /** Splits a whole downloaded object, checks its manifest and verifies the data. */
  decode(body: Uint8Array, expected: ManifestExpectation, key: string): StoredArtifact;
  /**
   * The manifest of the object at `key`, checked against `expected`; undefined when the
   * object does not exist. `known` is what a listing or metadata read said of it; with
   * `withBlocks`, the manifest is one that records the block digests (if it has any).
   */
  readManifest(
    bucket: ObjectBucket,
    deadline: Deadline,
    key: string,
    expected: ManifestExpectation,
    options: { known?: ObjectInfo | undefined; withBlocks: boolean },
  ): Promise<PublishedManifest | undefined>;
}

/**
 * The artifact of a whole object read, once its data is checked against its manifest (size
 * and sha256). The data is a fresh copy, read for this call alone: the template may hand it
 * out as it is.
 */
export function verifiedArtifact(manifest: StoredManifest, data: Uint8Array): StoredArtifact {
  if (data.byteLength !== manifest.size) {
    throw corruptArtifact(
      `stored data is ${data.byteLength} bytes, manifest says ${manifest.size}`,
    );
  }
  if (sha256Hex(data) !== manifest.sha256) {
    throw corruptArtifact("stored data does not match the manifest's sha256");
  }
  return { meta: metaOfManifest(manifest), data, shared: false };
}

/** The bytes of `parts`, one after the other, in a new array. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts);
}

/** `concatBytes` over a list: a body's many chunks, which would not fit a call's arguments. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.byteLength;
  }
  return joined;
}
