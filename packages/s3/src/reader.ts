import { type Deadline, notFound, type Scope } from "@artifact-kit/core";
import { nameKey, type StoredManifest } from "@artifact-kit/core/adapter";
import type { BucketClient, ListedObject } from "./bucket-client.js";
import type { LatestLookup } from "./latest.js";
import type { ObjectLayout } from "./layout.js";
import { readPublishedManifest } from "./published.js";

/**
 * Finds published versions and reads their manifests. A version deleted between a listing
 * and its read is treated as gone: "latest" is looked up again, a listing leaves it out.
 */
export class PublishedReader {
  readonly #client: BucketClient;
  readonly #layout: ObjectLayout;
  readonly #latest: LatestLookup;

  constructor(client: BucketClient, layout: ObjectLayout, latest: LatestLookup) {
    this.#client = client;
    this.#layout = layout;
    this.#latest = latest;
  }

  /** The number of the name key's highest published version, or undefined when none is left. */
  async latestVersion(scope: Scope, key: string, deadline: Deadline): Promise<number | undefined> {
    const object = await this.#latest.latestObject(scope, key, deadline);
    return object === undefined
      ? undefined
      : this.#layout.versionOf(object, this.#layout.versionsPrefix(scope, key));
  }

  /** The object and manifest of a version (not_found when it is not published). */
  async findVersion(
    scope: Scope,
    name: string,
    version: number | "latest",
    deadline: Deadline,
  ): Promise<{ objectKey: string; manifest: StoredManifest }> {
    const { key } = nameKey(name);
    for (;;) {
      const objectKey =
        version === "latest"
          ? await this.#latest.latestObject(scope, key, deadline)
          : this.#layout.versionObject(scope, key, version);
      if (objectKey === undefined) break;
      const manifest = await this.readPublished(scope, objectKey, deadline, name);
      if (manifest) return { objectKey, manifest };
      // Deleted between the listing and the read: look up "latest" again.
      if (version !== "latest") break;
    }
    throw notFound(`artifact "${name}" version ${version}`);
  }

  /** The manifests of listed objects; one deleted meanwhile is left out. */
  async readAll(
    scope: Scope,
    objects: readonly ListedObject[],
    deadline: Deadline,
    name?: string,
  ): Promise<StoredManifest[]> {
    const manifests = await Promise.all(
      objects.map((object) => this.readPublished(scope, object.key, deadline, name)),
    );
    return manifests.filter((manifest) => manifest !== undefined);
  }

  /** The name behind a truncated key, read from one of its manifests. */
  async truncatedKeyName(
    scope: Scope,
    key: string,
    deadline: Deadline,
  ): Promise<string | undefined> {
    const page = await this.#client.list(deadline, {
      prefix: this.#layout.versionsPrefix(scope, key),
      maxKeys: 1,
    });
    const object = page.objects[0];
    return object ? (await this.readPublished(scope, object.key, deadline))?.name : undefined;
  }

  readPublished(
    scope: Scope,
    objectKey: string,
    deadline: Deadline,
    name?: string,
  ): Promise<StoredManifest | undefined> {
    return readPublishedManifest(this.#client, this.#layout, scope, objectKey, deadline, name);
  }
}
