import {
  capabilityDenied,
  invalidArgument,
  invalidServiceReply,
  isArtifactError,
  notFound,
} from "./errors.js";
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

/** Receives each effect of a successful mutation, before the mutation's promise settles. */
export type EffectListener = (effect: ArtifactEffect) => void;

/**
 * One scope and a declared set of operations over a service, for handing to an agent tool.
 * The service itself is unreachable from it; every reply is checked before it is returned.
 * Once revoked, every operation is denied and no read or listing answers, even one in flight.
 */
export class BoundArtifacts {
  readonly #service: ArtifactService;
  readonly #allowed: ReadonlySet<ArtifactOperation>;
  readonly #onEffect: EffectListener | undefined;
  #revoked = false;
  readonly scope: Scope;

  constructor(
    service: ArtifactService,
    scope: Scope,
    allowed: ReadonlySet<ArtifactOperation>,
    onEffect?: EffectListener,
  ) {
    this.#service = service;
    this.#allowed = allowed;
    this.#onEffect = onEffect;
    this.scope = scope;
    Object.freeze(this);
  }

  allows(operation: ArtifactOperation): boolean {
    return !this.#revoked && this.#allowed.has(operation);
  }

  /** Ends this capability for good: a single-call grant is revoked when its call returns. */
  revoke(): void {
    this.#revoked = true;
  }

  #require(operation: ArtifactOperation): void {
    this.#requireLive(operation);
    if (!this.#allowed.has(operation)) {
      throw capabilityDenied(`operation "${operation}" was not granted`, { operation });
    }
  }

  #requireLive(operation: ArtifactOperation): void {
    if (this.#revoked) {
      throw capabilityDenied(`operation "${operation}" on a revoked capability`, {
        operation,
        revoked: true,
      });
    }
  }

  #report(operation: ArtifactEffect["operation"], meta: ArtifactMeta): ArtifactEffect {
    const effect = effectOf(operation, meta);
    this.#onEffect?.(effect);
    return effect;
  }

  async put(name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactEffect> {
    this.#require("put");
    const meta = checkMetaReply(
      await this.#service.put(this.scope, name, data, options),
      this.scope,
      name,
    );
    if (meta.size !== data.byteLength) throw invalidServiceReply("put reply reports another size");
    return this.#report("put", meta);
  }

  async get(name: string, options?: GetOptions): Promise<Artifact> {
    this.#require("get");
    const artifact = await this.#readChecked(name, options);
    this.#requireLive("get");
    return artifact;
  }

  async attach(name: string, options?: GetOptions): Promise<ArtifactAttachment> {
    this.#require("attach");
    const { version, mimeType, size, sha256, data } = await this.#readChecked(name, options);
    this.#requireLive("attach");
    return Object.freeze({ name, version, mimeType, size, sha256, data });
  }

  async list(options?: ListNamesOptions): Promise<NamePage> {
    this.#require("list");
    const limit = options?.limit ?? this.#service.capabilities().pagination.maxPageLimit;
    const page = await this.#service.listNames(this.scope, options);
    this.#requireLive("list");
    return checkNamePageReply(page, this.scope, limit);
  }

  async listVersions(name: string, options?: ListVersionsOptions): Promise<VersionPage> {
    this.#require("listVersions");
    const limit = options?.limit ?? this.#service.capabilities().pagination.maxPageLimit;
    const page = await this.#service.listVersions(this.scope, name, options);
    this.#requireLive("listVersions");
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
      return [this.#report("delete", meta)];
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
          effects.push(this.#report("delete", meta));
        } catch (error) {
          if (!isArtifactError(error, "not_found")) throw error; // deleted concurrently
        }
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (effects.length === 0) throw notFound(`artifact "${name}"`);
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
      throw invalidServiceReply("head returned another version");
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

export interface BindOptions<
  Allow extends readonly ArtifactOperation[] = readonly ArtifactOperation[],
> {
  allow: Allow;
  /** Told of every successful mutation as a metadata-only effect (for an event log). */
  onEffect?: EffectListener;
}

/**
 * A capability's type for the operations `Op`: the granted methods and nothing else, so a
 * call to an undeclared operation fails to compile as well as at run time.
 */
export type GrantedArtifacts<Op extends ArtifactOperation = ArtifactOperation> = Pick<
  BoundArtifacts,
  Op | "scope" | "allows" | "revoke"
>;

/**
 * Binds `service` to one scope and the operations in `allow`; everything else is denied.
 * The result's type offers only the declared methods: `{ allow: ["get"] }` has no `delete`.
 */
export function bindArtifacts<const Allow extends readonly ArtifactOperation[]>(
  service: ArtifactService,
  scope: Scope,
  options: BindOptions<Allow>,
): GrantedArtifacts<Allow[number]> {
  const { allow, onEffect } = validateOptionKeys(options, ["allow", "onEffect"], "bindOptions");
  if (onEffect !== undefined && typeof onEffect !== "function") {
    throw invalidArgument("onEffect", "must be a function");
  }
  if (!Array.isArray(allow)) throw invalidArgument("allow", "must be an array of operations");
  for (const operation of allow) {
    if (!(ARTIFACT_OPERATIONS as readonly unknown[]).includes(operation)) {
      throw invalidArgument("allow", `unknown operation ${JSON.stringify(operation)}`);
    }
  }
  const allowed = new Set(allow as ArtifactOperation[]);
  return new BoundArtifacts(service, validateScope(scope), allowed, onEffect as EffectListener);
}
