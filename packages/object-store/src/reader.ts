import { corruptArtifact, type Deadline, notFound, type Scope } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectFormat, PublishedManifest } from "./format.js";
import type { LatestLookup } from "./latest.js";
import type { ObjectLayout } from "./layout.js";

/** A published object found, and its checked manifest. */
export interface FoundVersion extends PublishedManifest {
  readonly objectKey: string;
}

interface ReadOptions {
  /** The name the caller asked for, when known: the manifest must name it. */
  readonly name?: string;
  /** What a listing or metadata read said of the object. */
  readonly known?: ObjectInfo;
  /** The manifest must be the one that records block digests. */
  readonly withBlocks?: boolean;
}

/**
 * Finds published versions and reads their manifests. A version deleted between a listing
 * and its read is treated as gone: "latest" is looked up again, a listing leaves it out.
 */
export class PublishedReader {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #format: ObjectFormat;
  readonly #latest: LatestLookup;

  constructor(
    bucket: ObjectBucket,
    layout: ObjectLayout,
    format: ObjectFormat,
    latest: LatestLookup,
  ) {
    this.#bucket = bucket;
    this.#layout = layout;
    this.#format = format;
    this.#latest = latest;
  }

  /** The number of the name key's highest published version, or undefined when none is left. */
  async latestVersion(scope: Scope, key: string, deadline: Deadline): Promise<number | undefined> {
    const object = await this.#latest.latestObject(scope, key, deadline);
    return object === undefined
      ? undefined
      : this.#layout.versionOf(object.key, this.#layout.versionsPrefix(scope, key));
  }

  /** The object and manifest of a version (not_found when it is not published). */
  async findVersion(
    scope: Scope,
    name: string,
    version: number | "latest",
    deadline: Deadline,
    withBlocks: boolean,
  ): Promise<FoundVersion> {
    const { key } = nameKey(name);
    for (;;) {
      const known =
        version === "latest" ? await this.#latest.latestObject(scope, key, deadline) : undefined;
      if (version === "latest" && known === undefined) break;
      const objectKey = known?.key ?? this.#layout.versionObject(scope, key, version as number);
      const found = await this.readPublished(scope, objectKey, deadline, {
        name,
        withBlocks,
        ...(known ? { known } : {}),
      });
      if (found) return { objectKey, ...found };
      // Deleted between the listing and the read: look up "latest" again.
      if (version !== "latest") break;
    }
    throw notFound(`artifact "${name}" version ${version}`);
  }

  /** The manifests of listed objects; one deleted meanwhile is left out. */
  async readAll(
    scope: Scope,
    objects: readonly ObjectInfo[],
    deadline: Deadline,
    name?: string,
  ): Promise<PublishedManifest[]> {
    const found = await Promise.all(
      objects.map((known) =>
        this.readPublished(scope, known.key, deadline, {
          known,
          ...(name === undefined ? {} : { name }),
        }),
      ),
    );
    return found.filter((published) => published !== undefined);
  }

  /** The name behind a truncated key, read from one of its manifests. */
  async truncatedKeyName(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<string | undefined> {
    const page = await this.#bucket.list(deadline, {
      prefix: this.#layout.versionsPrefix(scope, key),
      maxKeys: 1,
    });
    const known = page.objects[0];
    if (!known) return undefined;
    return (await this.readPublished(scope, known.key, deadline, { known }))?.manifest.name;
  }

  /**
   * The manifest of a published object, checked against the scope, the name key and version
   * in its key, and the expected name when known. Undefined when the object does not exist.
   */
  async readPublished(
    scope: Scope,
    objectKey: string,
    deadline: Deadline,
    options: ReadOptions,
  ): Promise<PublishedManifest | undefined> {
    const namesPrefix = this.#layout.namesPrefix(scope);
    const slash = objectKey.lastIndexOf("/");
    const key = objectKey.slice(namesPrefix.length, slash);
    const version = this.#layout.versionOf(objectKey, objectKey.slice(0, slash + 1));
    if (!objectKey.startsWith(namesPrefix) || version === undefined) {
      throw corruptArtifact(`unexpected object ${objectKey}`);
    }
    const { name, known, withBlocks = false } = options;
    const expected = { scope, version, ...(name === undefined ? {} : { name }) };
    const found = await this.#format.readManifest(this.#bucket, deadline, objectKey, expected, {
      known,
      withBlocks,
    });
    if (found && nameKey(found.manifest.name).key !== key) {
      throw corruptArtifact(`object ${objectKey} holds the manifest of another name`);
    }
    return found;
  }
}
