import {
  corruptArtifact,
  type Deadline,
  type NamePage,
  type Scope,
  type ScopePage,
  scopeDigest,
  validateScope,
} from "@artifact-kit/core";
import {
  type ParsedListNames,
  type ParsedListScopes,
  pageScopesWithNames,
} from "@artifact-kit/core/adapter";
import type { BucketClient, StoredObject } from "./bucket-client.js";
import { GCS_MAX_RESULTS, listAll } from "./latest.js";

// Scope discovery for the gcs adapter. Published objects live under a digest of their scope,
// so each scope also gets a marker `<prefix>c/<sha256 of scope>` holding the real scope (in
// its custom metadata, so a listing carries it), written create-only before the scope's first
// publication and never removed; a scope is live when its name listing finds a first name.
// Only this adapter's prefix is listed.
//
// Why not a delimiter listing of readable keys in id order: an order-preserving encoding of
// three 256-byte ids (hex, base32hex) is longer than the 1,024-byte object name limit.

const MARKER_DIGEST = /^[0-9a-f]{64}$/;
const SCOPE_FIELD = "artifactKitScope";

export class ScopeMarkers {
  readonly #client: BucketClient;
  readonly #prefix: string;
  /** Markers this instance has written or read: a marker never changes once created. */
  readonly #known = new Map<string, Scope>();

  constructor(client: BucketClient, adapterPrefix: string) {
    this.#client = client;
    this.#prefix = `${adapterPrefix}c/`;
  }

  /** Makes sure `scope` has its marker before anything is published into it. */
  async record(scope: Scope, deadline: Deadline): Promise<void> {
    const name = this.#prefix + scopeDigest(scope);
    if (this.#known.has(name)) return;
    const json = JSON.stringify(scope);
    await this.#client.createOnly(
      deadline,
      { name, body: new TextEncoder().encode(json), customMetadata: { [SCOPE_FIELD]: json } },
      false,
    );
    this.#known.set(name, scope);
  }

  /**
   * Every scope with a marker under the prefix, emptied ones included. The delimiter keeps a
   * tenant whose own prefix lies inside this folder (`<prefix>c/x/`) out of the listing.
   */
  async all(deadline: Deadline): Promise<Scope[]> {
    const objects = await listAll(this.#client, deadline, {
      prefix: this.#prefix,
      delimiter: "/",
      maxResults: GCS_MAX_RESULTS,
    });
    const scopes: Scope[] = [];
    for (const object of objects) {
      if (!MARKER_DIGEST.test(object.name.slice(this.#prefix.length))) continue;
      scopes.push(this.#known.get(object.name) ?? this.#read(object));
    }
    return scopes;
  }

  #read(object: StoredObject): Scope {
    let scope: Scope;
    try {
      scope = validateScope(JSON.parse(object.customMetadata[SCOPE_FIELD] ?? ""));
    } catch (error) {
      throw corruptArtifact(`scope marker ${object.name} holds no valid scope`, {}, error);
    }
    if (this.#prefix + scopeDigest(scope) !== object.name) {
      throw corruptArtifact(`scope marker ${object.name} names another scope`);
    }
    this.#known.set(object.name, scope);
    return scope;
  }
}

/** One page of the level's live scopes: those of the markers whose scope lists a first name. */
export async function liveScopePage(
  markers: ScopeMarkers,
  request: ParsedListScopes,
  names: (request: ParsedListNames) => Promise<NamePage>,
): Promise<ScopePage> {
  return pageScopesWithNames(await markers.all(request.deadline), request, names);
}
