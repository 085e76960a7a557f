import { ArtifactError, invalidArgument, isArtifactError } from "./errors.js";
import {
  checkArtifactReply,
  checkMetaReply,
  checkNamePageReply,
  checkVersionPageReply,
} from "./reply.js";
import type {
  Artifact,
  ArtifactMeta,
  ArtifactService,
  DeleteSelector,
  GetOptions,
  ListNamesOptions,
  ListVersionsOptions,
  NamePage,
  PutOptions,
  RequestOptions,
  Scope,
  VersionPage,
} from "./types.js";
import { validateOptionKeys, validateScope } from "./validate.js";

export const ARTIFACT_OPERATIONS = [
  "put",
  "get",
  "list",
  "listVersions",
  "delete",
  "attach",
] as const;
export type ArtifactOperation = (typeof ARTIFACT_OPERATIONS)[number];

/** What a mutation did, without its bytes: safe to hand back to a model or a log. */
export interface ArtifactEffect {
  readonly operation: "put" | "delete";
  readonly scope: Scope;
  readonly name: string;
  readonly version: number;
  readonly size: number;
  readonly sha256: string;
  readonly mimeType: string;
}

/** The content of one version, for attaching to a model request. */
export interface ArtifactAttachment {
  readonly name: string;
  readonly version: number;
  readonly mimeType: string;
  readonly size: number;
  readonly sha256: string;
  readonly data: Uint8Array;
}

function effectOf(operation: ArtifactEffect["operation"], meta: ArtifactMeta): ArtifactEffect {
  const { scope, name, version, size, sha256, mimeType } = meta;
  return Object.freeze({ operation, scope, name, version, size, sha256, mimeType });
}

/**
 * One scope and a declared set of operations over a service, for handing to an agent tool.
 * The service itself is unreachable from it; every reply is checked before it is returned.
 */
export class BoundArtifacts {
  readonly #service: ArtifactService;
  readonly #allowed: ReadonlySet<ArtifactOperation>;
  readonly scope: Scope;

  constructor(service: ArtifactService, scope: Scope, allowed: ReadonlySet<ArtifactOperation>) {
    this.#service = service;
    this.#allowed = allowed;
    this.scope = scope;
    Object.freeze(this);
  }

  allows(operation: ArtifactOperation): boolean {
    return this.#allowed.has(operation);
  }

  #require(operation: ArtifactOperation): void {
    if (!this.#allowed.has(operation)) {
      throw new ArtifactError("capability_denied", `operation "${operation}" was not granted`, {
        detail: { operation },
      });
    }
  }

  async put(name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactEffect> {
    this.#require("put");
    const meta = checkMetaReply(
      await this.#service.put(this.scope, name, data, options),
      this.scope,
      name,
    );
    if (meta.size !== data.byteLength) {
      throw new ArtifactError("invalid_service_reply", "put reply reports another size");
    }
    return effectOf("put", meta);
  }

  async get(name: string, options?: GetOptions): Promise<Artifact> {
    this.#require("get");
    return this.#readChecked(name, options);
  }

  async attach(name: string, options?: GetOptions): Promise<ArtifactAttachment> {
    this.#require("attach");
    const { version, mimeType, size, sha256, data } = await this.#readChecked(name, options);
    return Object.freeze({ name, version, mimeType, size, sha256, data });
  }

  async list(options?: ListNamesOptions): Promise<NamePage> {
    this.#require("list");
    const limit = options?.limit ?? this.#service.capabilities().pagination.maxPageLimit;
    return checkNamePageReply(
      await this.#service.listNames(this.scope, options),
      this.scope,
      limit,
    );
  }

  async listVersions(name: string, options?: ListVersionsOptions): Promise<VersionPage> {
    this.#require("listVersions");
    const limit = options?.limit ?? this.#service.capabilities().pagination.maxPageLimit;
    const page = await this.#service.listVersions(this.scope, name, options);
    return checkVersionPageReply(page, this.scope, name, limit);
  }

  /**
   * Deletes by exact version so the effects name exactly what was removed: "latest" is
   * resolved with a head first, "all" deletes every listed version one by one.
   */
  async delete(
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<ArtifactEffect[]> {
    this.#require("delete");
    if (selector !== "all") {
      const version = selector === "latest" ? undefined : selector;
      const meta = await this.#headChecked(name, version, options);
      await this.#service.delete(this.scope, name, meta.version, options);
      return [effectOf("delete", meta)];
    }
    const effects: ArtifactEffect[] = [];
    const limit = this.#service.capabilities().pagination.maxPageLimit;
    let cursor: number | undefined;
    do {
      const page = checkVersionPageReply(
        await this.#service.listVersions(this.scope, name, {
          ...options,
          ...(cursor ? { cursor } : {}),
        }),
        this.scope,
        name,
        limit,
      );
      for (const meta of page.items) {
        try {
          await this.#service.delete(this.scope, name, meta.version, options);
          effects.push(effectOf("delete", meta));
        } catch (error) {
          if (!isArtifactError(error, "not_found")) throw error; // deleted concurrently
        }
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (effects.length === 0) throw new ArtifactError("not_found", `artifact "${name}" not found`);
    return effects;
  }

  async #headChecked(name: string, version: number | undefined, options?: RequestOptions) {
    const request = version === undefined ? { ...options } : { ...options, version };
    const meta = checkMetaReply(
      await this.#service.head(this.scope, name, request),
      this.scope,
      name,
    );
    if (version !== undefined && meta.version !== version) {
      throw new ArtifactError("invalid_service_reply", "head returned another version");
    }
    return meta;
  }

  async #readChecked(name: string, options?: GetOptions): Promise<Artifact> {
    const pinned = typeof options?.version === "number" ? options.version : undefined;
    return checkArtifactReply(
      await this.#service.get(this.scope, name, options),
      this.scope,
      name,
      pinned,
    );
  }
}

export interface BindOptions {
  allow: readonly ArtifactOperation[];
}

/** Binds `service` to one scope and the operations in `allow`; everything else is denied. */
export function bindArtifacts(
  service: ArtifactService,
  scope: Scope,
  options: BindOptions,
): BoundArtifacts {
  const { allow } = validateOptionKeys(options, ["allow"], "bindOptions");
  if (!Array.isArray(allow)) throw invalidArgument("allow", "must be an array of operations");
  for (const operation of allow) {
    if (!(ARTIFACT_OPERATIONS as readonly unknown[]).includes(operation)) {
      throw invalidArgument("allow", `unknown operation ${JSON.stringify(operation)}`);
    }
  }
  return new BoundArtifacts(service, validateScope(scope), new Set(allow as ArtifactOperation[]));
}
