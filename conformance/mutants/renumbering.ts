import type {
  Artifact,
  ArtifactMeta,
  DeleteSelector,
  GetOptions,
  ListVersionsOptions,
  PutOptions,
  RequestOptions,
  Scope,
  VersionPage,
} from "@artifact-kit/core";
import { ArtifactError } from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

/** How a broken adapter numbers the next version, given the live ones and its high-water. */
export type NextVersion = (liveVersions: readonly number[], highWater: number) => number;

interface Numbering {
  /** Visible version -> the real adapter's version, for live versions, ascending. */
  live: Map<number, number>;
  /** The highest visible version handed out. */
  highWater: number;
}

/**
 * Shows its own version numbers over a correct adapter, so a numbering bug (reuse after
 * delete, reset on delete all) can be planted without touching the adapter itself.
 */
export class RenumberingService extends ForwardingService {
  readonly #slots = new Map<string, Numbering>();
  readonly #resetOnDeleteAll: boolean;
  readonly #next: NextVersion;

  constructor(inner: ForwardingService["inner"], next: NextVersion, resetOnDeleteAll: boolean) {
    super(inner);
    this.#next = next;
    this.#resetOnDeleteAll = resetOnDeleteAll;
  }

  #slot(scope: Scope, name: string): Numbering {
    const key = slotKey(scope, name);
    let slot = this.#slots.get(key);
    if (!slot) {
      slot = { live: new Map(), highWater: 0 };
      this.#slots.set(key, slot);
    }
    return slot;
  }

  #visible<T extends ArtifactMeta>(slot: Numbering, meta: T): T {
    for (const [visible, real] of slot.live)
      if (real === meta.version) return { ...meta, version: visible };
    return meta;
  }

  #real(slot: Numbering, version: number): number {
    const real = slot.live.get(version);
    if (real === undefined) throw new ArtifactError("not_found", `version ${version} not found`);
    return real;
  }

  override async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    const meta = await this.inner.put(scope, name, data, options);
    const slot = this.#slot(scope, name);
    const visible = this.#next([...slot.live.keys()], slot.highWater);
    slot.highWater = visible;
    slot.live.set(visible, meta.version);
    return { ...meta, version: visible };
  }

  override async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    const slot = this.#slot(scope, name);
    const version = options?.version;
    const real =
      typeof version === "number" ? { ...options, version: this.#real(slot, version) } : options;
    return this.#visible(slot, await this.inner.get(scope, name, real));
  }

  override async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    const { data: _, ...meta } = await this.get(scope, name, options);
    return meta;
  }

  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    const slot = this.#slot(scope, name);
    if (typeof selector === "number") {
      await this.inner.delete(scope, name, this.#real(slot, selector), options);
      slot.live.delete(selector);
      return;
    }
    await this.inner.delete(scope, name, selector, options);
    if (selector === "all") {
      slot.live.clear();
      if (this.#resetOnDeleteAll) slot.highWater = 0;
    } else {
      slot.live.delete(Math.max(...slot.live.keys()));
    }
  }

  override async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    const slot = this.#slot(scope, name);
    const cursor = options?.cursor;
    const real =
      cursor === undefined ? options : { ...options, cursor: slot.live.get(cursor) ?? cursor };
    const page = await this.inner.listVersions(scope, name, real);
    const items = page.items.map((meta) => this.#visible(slot, meta));
    const last = items.at(-1);
    return page.nextCursor === undefined || !last ? { items } : { items, nextCursor: last.version };
  }

  override async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    return (await this.inner.list(scope, options)).map((meta) =>
      this.#visible(this.#slot(scope, meta.name), meta),
    );
  }
}
