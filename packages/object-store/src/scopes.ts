import { corruptArtifact, type Deadline, type Scope, validateScope } from "@artifact-kit/core";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectStoreDialect } from "./dialect.js";
import { headerSafeJson } from "./header-text.js";
import type { ObjectLayout } from "./layout.js";
import { listAll } from "./listing.js";

// Scope discovery. Published objects live under a digest of their scope, so each scope also
// gets a marker `<prefix>c/<sha256 of scope>` holding the real scope, written create-only
// before the scope's first publication and never removed; a scope is live when its name
// listing finds a first name. Only this store's prefix is listed, with delimiter "/", so a
// store whose own prefix lies inside the markers' folder (`<prefix>c/x/`) stays out.
//
// Why not a delimiter listing of readable keys in id order: an order-preserving encoding of
// three 256-byte ids (hex, base32hex) is longer than the 1,024-byte key limit of S3 and GCS.

/** The custom metadata entry of a "metadata" marker (the name the gcs adapter first wrote). */
const SCOPE_METADATA_KEY = "artifactKitScope";

/** Largest marker body read: a valid one is under 1 KiB (three 256-byte ids in JSON). */
const MAX_MARKER_BYTES = 16_384;

export class ScopeMarkers {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #holder: ObjectStoreDialect["scopeMarkers"];
  /** Markers this instance has written or read: a marker never changes once created. */
  readonly #known = new Map<string, Scope>();

  constructor(
    bucket: ObjectBucket,
    layout: ObjectLayout,
    holder: ObjectStoreDialect["scopeMarkers"],
  ) {
    this.#bucket = bucket;
    this.#layout = layout;
    this.#holder = holder;
  }

  /**
   * Makes sure `scope` has its marker before anything is published into it. "exists" is
   * success either way: a marker's key is its scope's digest, so whoever wrote it wrote this.
   */
  async record(scope: Scope, deadline: Deadline): Promise<void> {
    const key = this.#layout.scopeMarker(scope);
    if (this.#known.has(key)) return;
    const json = JSON.stringify(scope);
    const object =
      this.#holder === "body"
        ? { key, body: new TextEncoder().encode(JSON.stringify({ scope })) }
        : {
            key,
            body: new TextEncoder().encode(json),
            metadata: { [SCOPE_METADATA_KEY]: headerSafeJson(json) },
          };
    await this.#bucket.createOnly(deadline, object, { commit: false });
    this.#known.set(key, scope);
  }

  /** Every scope with a marker under the prefix, emptied ones included. */
  async all(deadline: Deadline): Promise<Scope[]> {
    const objects = await listAll(this.#bucket, deadline, {
      prefix: this.#layout.scopeMarkersPrefix(),
      delimiter: "/",
      maxKeys: this.#bucket.maxListKeys,
    });
    const markers = objects.filter(({ key }) => this.#layout.isScopeMarker(key));
    const scopes = await Promise.all(
      markers.map((object) => this.#known.get(object.key) ?? this.#read(object, deadline)),
    );
    return scopes.filter((scope) => scope !== undefined);
  }

  /** The marker's scope; undefined when a "body" marker is gone by the time it is read. */
  async #read(object: ObjectInfo, deadline: Deadline): Promise<Scope | undefined> {
    const text = await this.#scopeText(object, deadline);
    if (text === undefined) return undefined;
    let scope: Scope;
    try {
      const parsed: unknown = JSON.parse(text);
      scope = validateScope(
        this.#holder === "body" ? (parsed as { scope?: unknown }).scope : parsed,
      );
    } catch (error) {
      throw corruptArtifact(`scope marker ${object.key} holds no valid scope`, {}, error);
    }
    if (this.#layout.scopeMarker(scope) !== object.key) {
      throw corruptArtifact(`scope marker ${object.key} names another scope`);
    }
    this.#known.set(object.key, scope);
    return scope;
  }

  async #scopeText(object: ObjectInfo, deadline: Deadline): Promise<string | undefined> {
    if (this.#holder === "metadata") return object.metadata?.[SCOPE_METADATA_KEY] ?? "";
    const stored = await this.#bucket.get(deadline, object.key, {
      start: 0,
      end: MAX_MARKER_BYTES - 1,
    });
    if (stored === undefined) return undefined;
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(stored.bytes);
    } catch (error) {
      throw corruptArtifact(`scope marker ${object.key} is not UTF-8`, {}, error);
    }
  }
}
