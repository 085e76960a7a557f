import {
  type ArtifactService,
  allNames,
  asArtifactError,
  decodeUtf8,
  isArtifactError,
  MAX_SCOPE_ID_BYTES,
  type RunArtifact,
  type RunContent,
  type RunStore,
  type RunStoreBounds,
  type RunStoreBoundsOptions,
  type Scope,
  validateOptionKeys,
  validateText,
} from "@artifact-kit/core";
import { Mutex } from "async-mutex";
import { checkBounds, resolveBounds } from "./bounds.js";
import {
  type Encoding,
  type FileRecord,
  fileRecordOf,
  MIME_TYPES,
  markerName,
  registryScope,
  runIdOfMarker,
  runScope,
} from "./service-layout.js";
import { copyContent, freezeSnapshot } from "./snapshot.js";
import { validateId, validatePath, validateRegister } from "./validate.js";

export interface ArtifactServiceRunStoreOptions {
  bounds?: RunStoreBoundsOptions;
  /** The `app` of every scope this store uses, so that stores can share one service (default "artifact-kit.run-store"). */
  namespace?: string;
}

export const DEFAULT_NAMESPACE = "artifact-kit.run-store";

interface IndexedFile extends FileRecord {
  /** The artifact version holding the current content. */
  readonly version: number;
  readonly size: number;
}

interface RunIndex {
  /** Kept in registration order. */
  readonly files: Map<string, IndexedFile>;
  bytes: number;
  nextOrder: number;
}

const encoder = new TextEncoder();

/**
 * A durable run store over any ArtifactService: each run is a scope, each path an artifact whose
 * metadata keeps the step id and registration order. The index of runs, paths and sizes is
 * loaded from the service on first use and then kept in memory, so bounds are checked without
 * a round trip; calls are serialized, and the store expects to be the only writer of its
 * namespace while it is open.
 */
export class ArtifactServiceRunStore implements RunStore {
  readonly #service: ArtifactService;
  readonly #bounds: RunStoreBounds;
  readonly #namespace: string;
  readonly #mutex = new Mutex();
  #runs: Map<string, RunIndex> | undefined;
  #totalBytes = 0;

  constructor(service: ArtifactService, options: ArtifactServiceRunStoreOptions = {}) {
    const given = validateOptionKeys(options, ["bounds", "namespace"]);
    this.#service = service;
    this.#bounds = resolveBounds(given.bounds);
    this.#namespace =
      given.namespace === undefined
        ? DEFAULT_NAMESPACE
        : validateText(given.namespace, "namespace", MAX_SCOPE_ID_BYTES);
  }

  bounds(): RunStoreBounds {
    return this.#bounds;
  }

  async register(runId: string, stepId: string, path: string, content: RunContent): Promise<void> {
    const size = validateRegister(runId, stepId, path, content);
    // A private copy before the first await: the caller may change its bytes once we return.
    const kept = copyContent(content);
    await this.#exclusive("register", async (runs) => {
      const run = runs.get(runId);
      const replaced = run?.files.get(path);
      checkBounds(
        this.#bounds,
        {
          replacedSize: replaced?.size,
          runArtifacts: run?.files.size ?? 0,
          runBytes: run?.bytes ?? 0,
          runs: runs.size,
          totalBytes: this.#totalBytes,
        },
        size,
      );
      const encoding: Encoding = typeof kept === "string" ? "utf8" : "bytes";
      const record: FileRecord = {
        stepId,
        order: replaced?.order ?? run?.nextOrder ?? 1,
        encoding,
      };
      const scope = this.#runScope(runId);
      // The marker goes first: a crash before the file leaves an empty run, which loading drops.
      if (!run) await this.#service.put(this.#registry(), markerName(runId), new Uint8Array());
      let version: number;
      try {
        const data = typeof kept === "string" ? encoder.encode(kept) : kept;
        ({ version } = await this.#service.put(scope, path, data, {
          mimeType: MIME_TYPES[encoding],
          metadata: { ...record },
        }));
      } catch (error) {
        if (!run) await this.#deleteAll(this.#registry(), markerName(runId)).catch(() => {});
        throw error;
      }
      // The new version is committed; the old one is garbage that loading would ignore anyway.
      if (replaced) await this.#deleteVersion(scope, path, replaced.version);
      const target = run ?? this.#newRun(runs, runId);
      target.files.set(path, { ...record, version, size });
      target.nextOrder = Math.max(target.nextOrder, record.order + 1);
      this.#account(target, size - (replaced?.size ?? 0));
    });
  }

  async find(runId: string, path: string): Promise<RunContent | undefined> {
    const validRunId = validateId(runId, "runId");
    const validPath = validatePath(path);
    return this.#exclusive("find", async (runs) => {
      const file = runs.get(validRunId)?.files.get(validPath);
      return file && this.#read(validRunId, validPath, file);
    });
  }

  async artifacts(runId: string): Promise<readonly RunArtifact[]> {
    const validRunId = validateId(runId, "runId");
    return this.#exclusive("artifacts", async (runs) => {
      const files = [...(runs.get(validRunId)?.files ?? [])];
      const entries = await Promise.all(
        files.map(async ([path, file]) => ({
          path,
          stepId: file.stepId,
          content: await this.#read(validRunId, path, file),
          size: file.size,
        })),
      );
      return freezeSnapshot(entries);
    });
  }

  async remove(runId: string, path: string): Promise<void> {
    const validRunId = validateId(runId, "runId");
    const validPath = validatePath(path);
    await this.#exclusive("remove", async (runs) => {
      const run = runs.get(validRunId);
      if (run?.files.has(validPath)) await this.#removeFile(runs, validRunId, run, validPath);
    });
  }

  async clear(runId: string): Promise<void> {
    const validRunId = validateId(runId, "runId");
    await this.#exclusive("clear", async (runs) => {
      const run = runs.get(validRunId);
      if (!run) return;
      // One file at a time, so that the index matches the service if a delete fails midway.
      for (const path of [...run.files.keys()]) await this.#removeFile(runs, validRunId, run, path);
    });
  }

  /** Runs `body` alone, over the loaded index; backend failures become ArtifactErrors. */
  async #exclusive<T>(
    operation: string,
    body: (runs: Map<string, RunIndex>) => Promise<T>,
  ): Promise<T> {
    return this.#mutex.runExclusive(async () => {
      try {
        this.#runs ??= await this.#load();
        return await body(this.#runs);
      } catch (error) {
        throw asArtifactError(error, operation);
      }
    });
  }

  async #load(): Promise<Map<string, RunIndex>> {
    const runs = new Map<string, RunIndex>();
    let totalBytes = 0;
    for (const marker of await allNames(this.#service, this.#registry())) {
      const runId = runIdOfMarker(marker);
      const scope = this.#runScope(runId);
      const metas = await Promise.all(
        (await allNames(this.#service, scope)).map((path) => this.#service.head(scope, path)),
      );
      if (metas.length === 0) {
        await this.#deleteAll(this.#registry(), marker);
        continue;
      }
      const files = metas
        .map((meta) => ({
          path: meta.name,
          file: { ...fileRecordOf(meta), version: meta.version, size: meta.size },
        }))
        .sort((a, b) => a.file.order - b.file.order);
      const run: RunIndex = { files: new Map(), bytes: 0, nextOrder: 1 };
      for (const { path, file } of files) {
        run.files.set(path, file);
        run.bytes += file.size;
        run.nextOrder = file.order + 1;
      }
      runs.set(runId, run);
      totalBytes += run.bytes;
    }
    this.#totalBytes = totalBytes;
    return runs;
  }

  async #read(runId: string, path: string, file: IndexedFile): Promise<RunContent> {
    const { data } = await this.#service.get(this.#runScope(runId), path, {
      version: file.version,
    });
    // A copy, whatever the adapter does with its buffers: callers may change what they get.
    return file.encoding === "utf8" ? decodeUtf8(data) : new Uint8Array(data);
  }

  async #removeFile(runs: Map<string, RunIndex>, runId: string, run: RunIndex, path: string) {
    const file = run.files.get(path);
    if (!file) return;
    await this.#deleteAll(this.#runScope(runId), path);
    run.files.delete(path);
    this.#account(run, -file.size);
    if (run.files.size > 0) return;
    await this.#deleteAll(this.#registry(), markerName(runId));
    runs.delete(runId);
  }

  /** Deletes every version of `name`; one already gone is what was asked for. */
  async #deleteAll(scope: Scope, name: string): Promise<void> {
    await this.#ignoreNotFound(this.#service.delete(scope, name, "all"));
  }

  async #deleteVersion(scope: Scope, name: string, version: number): Promise<void> {
    await this.#ignoreNotFound(this.#service.delete(scope, name, version));
  }

  async #ignoreNotFound(deletion: Promise<void>): Promise<void> {
    try {
      await deletion;
    } catch (error) {
      if (!isArtifactError(error, "not_found")) throw error;
    }
  }

  #newRun(runs: Map<string, RunIndex>, runId: string): RunIndex {
    const run: RunIndex = { files: new Map(), bytes: 0, nextOrder: 1 };
    runs.set(runId, run);
    return run;
  }

  #account(run: RunIndex, bytes: number): void {
    run.bytes += bytes;
    this.#totalBytes += bytes;
  }

  #runScope(runId: string): Scope {
    return runScope(this.#namespace, runId);
  }

  #registry(): Scope {
    return registryScope(this.#namespace);
  }
}
