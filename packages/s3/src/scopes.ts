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
import type { BucketClient } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";
import { listAll } from "./latest.js";

// Scope discovery for the s3 adapter. Published objects live under a digest of their scope,
// so each scope also gets a marker `<prefix>c/<sha256 of scope>` holding the real scope,
// written create-only before the scope's first publication and never removed; a scope is
// live when its name listing finds a first name. Only this adapter's prefix is listed.
//
// Why not a delimiter listing of readable keys in id order: an order-preserving encoding of
// three 256-byte ids (hex, base32hex) is longer than S3's 1,024-byte key limit.

const MARKER_DIGEST = /^[0-9a-f]{64}$/;

/** Largest marker read: a valid one is under 1 KiB (three 256-byte ids in JSON). */
const MAX_MARKER_BYTES = 16_384;

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
    const key = this.#prefix + scopeDigest(scope);
    if (this.#known.has(key)) return;
    const body = new TextEncoder().encode(JSON.stringify({ scope }));
    await this.#client.createOnly(deadline, key, body, false);
    this.#known.set(key, scope);
  }

  /**
   * Every scope with a marker under the prefix, emptied ones included. The delimiter keeps a
   * tenant whose own prefix lies inside this folder (`<prefix>c/x/`) out of the listing.
   */
  async all(deadline: Deadline): Promise<Scope[]> {
    const objects = await listAll(this.#client, deadline, {
      prefix: this.#prefix,
      delimiter: "/",
      maxKeys: S3_MAX_KEYS,
    });
    // Markers not read yet are read concurrently (the client bounds requests in flight).
    const scopes = await Promise.all(
      objects
        .filter(({ key }) => MARKER_DIGEST.test(key.slice(this.#prefix.length)))
        .map(({ key }) => this.#known.get(key) ?? this.#read(key, deadline)),
    );
    return scopes.filter((scope) => scope !== undefined);
  }

  async #read(key: string, deadline: Deadline): Promise<Scope | undefined> {
    const stored = await this.#client.get(deadline, key, { start: 0, end: MAX_MARKER_BYTES });
    if (stored === undefined) return undefined;
    let scope: Scope;
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(stored.bytes);
      scope = validateScope((JSON.parse(text) as { scope?: unknown }).scope);
    } catch (error) {
      throw corruptArtifact(`scope marker ${key} holds no valid scope`, {}, error);
    }
    if (this.#prefix + scopeDigest(scope) !== key) {
      throw corruptArtifact(`scope marker ${key} names another scope`);
    }
    this.#known.set(key, scope);
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
