import type { Deadline } from "@artifact-kit/core";
import type {
  ManifestExpectation,
  StoredArtifact,
  StoredManifest,
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
