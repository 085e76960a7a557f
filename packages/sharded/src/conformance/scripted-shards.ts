// The kit's instrumented workers: a factory that records what it opens and lets a law block or
// break a worker, over memory stores it keeps (so "durable" workers find their data again).

import {
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  closedError,
  type Durability,
  defineCapabilities,
  type Scope,
} from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";
import type { Shard, ShardFactory } from "../shard.js";

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

export const appScope = (app: string): Scope => ({ kind: "app", app });

type Operation =
  | "put"
  | "get"
  | "head"
  | "delete"
  | "listNames"
  | "listVersions"
  | "list"
  | "listScopes"
  | "openUpload"
  | "openDownload"
  // The calls on a scripted worker's transfers: the hook runs once the call has reached the
  // worker's own upload or download, and holds or fails its answer.
  | "upload.write"
  | "upload.finish"
  | "upload.abort"
  | "download.read"
  | "download.cancel";

/** Runs before every operation of a worker: may block it (await a deferred) or throw. */
export type Hook = (
  operation: Operation,
  shard: Shard,
  args: readonly unknown[],
) => void | Promise<void>;

/**
 * A worker over a memory store that the factory keeps. Under "durable" the store outlives
 * the worker, as files outlive an fs adapter, so a reopened worker finds its data.
 */
class ScriptedService implements ArtifactService {
  readonly #store: MemoryArtifactService;
  readonly #factory: ScriptedShards;
  readonly #shard: Shard;
  closed = false;

  constructor(store: MemoryArtifactService, factory: ScriptedShards, shard: Shard) {
    this.#store = store;
    this.#factory = factory;
    this.#shard = shard;
  }

  capabilities(): Capabilities {
    return this.#factory.capabilities;
  }

  protected async enter(
    operation: Operation,
    args: readonly unknown[],
  ): Promise<MemoryArtifactService> {
    if (this.closed) throw closedError();
    await this.#factory.hook(operation, this.#shard, args);
    return this.#store;
  }

  /** Runs `call` on the worker's transfer, then the hook, which may hold or fail the answer. */
  protected async answer<T>(operation: Operation, args: readonly unknown[], call: Promise<T>) {
    call.catch(() => undefined);
    await this.#factory.hook(operation, this.#shard, args);
    return call;
  }

  put: ArtifactService["put"] = async (...args) => (await this.enter("put", args)).put(...args);
  get: ArtifactService["get"] = async (...args) => (await this.enter("get", args)).get(...args);
  head: ArtifactService["head"] = async (...args) => (await this.enter("head", args)).head(...args);
  delete: ArtifactService["delete"] = async (...args) =>
    (await this.enter("delete", args)).delete(...args);
  listNames: ArtifactService["listNames"] = async (...args) =>
    (await this.enter("listNames", args)).listNames(...args);
  listVersions: ArtifactService["listVersions"] = async (...args) =>
    (await this.enter("listVersions", args)).listVersions(...args);
  list: ArtifactService["list"] = async (...args) => (await this.enter("list", args)).list(...args);
  listScopes: ArtifactService["listScopes"] = async (...args) =>
    (await this.enter("listScopes", args)).listScopes(...args);

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A scripted worker that also serves the memory store's native transfer. */
class TransferringService extends ScriptedService implements ArtifactTransfer {
  openUpload: ArtifactTransfer["openUpload"] = async (...args) => {
    const sink = await (await this.enter("openUpload", args)).openUpload(...args);
    return {
      write: (chunk) => this.answer("upload.write", [chunk], sink.write(chunk)),
      finish: () => this.answer("upload.finish", [], sink.finish()),
      abort: (reason) => this.answer("upload.abort", [reason], sink.abort(reason)),
    };
  };
  openDownload: ArtifactTransfer["openDownload"] = async (...args) => {
    const source = await (await this.enter("openDownload", args)).openDownload(...args);
    return {
      meta: source.meta,
      offset: source.offset,
      length: source.length,
      read: () => this.answer("download.read", [], source.read()),
      cancel: () => this.answer("download.cancel", [], source.cancel()),
    };
  };
}

/**
 * What the scripted workers do about streaming transfer: serve it (`native`), declare it
 * without implementing it (`declared_only`, a broken factory), or neither (`none`).
 */
export type ScriptedTransfer = "native" | "declared_only" | "none";

const PAGES = { maxPageLimit: 100, legacyListLimit: 100 };

const ALL_TRANSFER = { streamingUpload: true, streamingDownload: true, byteRanges: true };

/** A ShardFactory that records what it opens and lets a test block or break workers. */
export class ScriptedShards implements ShardFactory {
  readonly capabilities: Capabilities;
  readonly #durability: Durability;
  readonly #transfer: ScriptedTransfer;
  readonly #stores = new Map<string, MemoryArtifactService>();
  /** Every scope a worker was opened for, by shard id: what a restarted router asks about. */
  readonly #scopes = new Map<string, Scope>();
  /** The app of every shard opened, in order ("shared" for the shared worker). */
  readonly opened: string[] = [];
  readonly openedShards: Shard[] = [];
  readonly workers: ScriptedService[] = [];
  hook: Hook = () => undefined;
  /** While set, every open waits for it. */
  openGate: Promise<void> | undefined;

  constructor(durability: Durability, transfer: ScriptedTransfer = "none") {
    this.#durability = durability;
    this.#transfer = transfer;
    this.capabilities = defineCapabilities({
      durability,
      ...PAGES,
      quotas: { appliesTo: "global", bounds: {} },
      ...(transfer === "none" ? {} : { transfer: ALL_TRANSFER }),
    });
  }

  async open(shard: Shard): Promise<ArtifactService> {
    this.opened.push(shard.scope ? shard.scope.app : shard.id);
    this.openedShards.push(shard);
    await this.openGate;
    const kept = this.#durability === "durable" ? this.#stores.get(shard.id) : undefined;
    // Pages and lists as the factory declares them: the router checks the workers against it.
    const store = kept ?? new MemoryArtifactService(PAGES);
    this.#stores.set(shard.id, store);
    if (shard.scope) this.#scopes.set(shard.id, shard.scope);
    const worker =
      this.#transfer === "native"
        ? new TransferringService(store, this, shard)
        : new ScriptedService(store, this, shard);
    this.workers.push(worker);
    return worker;
  }

  async scopes(): Promise<readonly Scope[]> {
    return [...this.#scopes.values()];
  }
}

export const bytes = (text: string) => new TextEncoder().encode(text);
