import type { ArtifactMeta } from "@artifact-kit/core";
import { AdapterService, nameKey } from "@artifact-kit/core/adapter";
import type {
  ArtifactServiceConformanceOptions,
  ServiceSubject,
} from "@artifact-kit/core/conformance";
import {
  ObjectLayout,
  ObjectStoreBackend,
  type ObjectStoreDialect,
  objectStoreCapabilities,
} from "../../src/index.js";
import { BucketFaults } from "./faulty-bucket.js";
import { MemoryBucket } from "./memory-bucket.js";

/** The two formats the adapters write, with the bucket each one is paired with. */
export const DIALECTS = {
  trailer: {
    dialect: {
      format: { kind: "trailer", name: "test/trailer@1" },
      bindings: "name-and-key",
      deletions: "markers",
      scopeMarkers: "body",
      versionRecords: "chunks",
    },
    newBucket: () => new MemoryBucket("body", false, false),
  },
  header: {
    dialect: {
      format: { kind: "header", name: "test/header@1" },
      bindings: "per-name",
      deletions: "allocation-flags",
      scopeMarkers: "metadata",
    },
    newBucket: () => new MemoryBucket("metadata", true, true),
  },
} as const satisfies Record<string, { dialect: ObjectStoreDialect; newBucket: () => MemoryBucket }>;

const BOUNDS = {
  maxArtifactBytes: 64 * 1024 * 1024,
  maxPageLimit: 1_000,
  legacyListLimit: 1_000,
  maxConcurrency: 16,
  maxContentionWaitMs: 60_000,
};

export function openService(
  bucket: MemoryBucket,
  dialect: ObjectStoreDialect,
  bounds: Partial<typeof BOUNDS> = {},
  prefix = "p/",
  recordChunkSettleMs?: number,
): AdapterService {
  const config = { ...BOUNDS, ...bounds };
  const settle = recordChunkSettleMs === undefined ? {} : { recordChunkSettleMs };
  const backend = new ObjectStoreBackend({ ...config, ...settle, bucket, prefix, dialect });
  return new (class extends AdapterService {})(backend, objectStoreCapabilities(config));
}

/** Flips one data byte of the published object of `meta`, keeping its metadata. */
function corrupt(
  bucket: MemoryBucket,
  dialect: ObjectStoreDialect,
  meta: ArtifactMeta,
  at: number,
) {
  const layout = new ObjectLayout("p/", dialect.bindings);
  const key = layout.versionObject(meta.scope, nameKey(meta.name).key, meta.version);
  const stored = bucket.objects.get(key);
  if (!stored) throw new Error(`no object ${key}`);
  const offset =
    dialect.format.kind === "header" ? Number(stored.metadata["artifact-kit-header-bytes"]) : 0;
  const body = stored.body.slice();
  body[offset + at] = (body[offset + at] ?? 0) ^ 0xff;
  bucket.objects.set(key, { ...stored, body });
}

/**
 * The kit's subjects over a fresh memory bucket each. With `faults`, they carry the bucket's
 * fault injection (for the patched copies' fault families): a lost reply here is never
 * retried, which s3 and azure, whose dialect is "trailer", always do once (see the README).
 */
export function memorySubjects(
  which: keyof typeof DIALECTS,
  { faults: withFaults = false }: { faults?: boolean } = {},
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  const { dialect, newBucket } = DIALECTS[which];
  const subject = (bounds: Partial<typeof BOUNDS>) => async (): Promise<ServiceSubject> => {
    const bucket = newBucket();
    // The kit's fault laws arm faults at the requests of every handle on the bucket.
    const faults = new BucketFaults();
    const faulty = faults.wrap(bucket);
    const open = () => openService(faulty, dialect, bounds);
    return {
      ...(withFaults ? { faults } : {}),
      service: open(),
      reopen: async () => open(),
      openAnother: async () => open(),
      // Nested in this store's scope-marker folder: the hardest neighbour to keep apart.
      openNeighbour: async () => openService(faulty, dialect, bounds, "p/c/"),
      corrupt: async (meta, offset) => corrupt(bucket, dialect, meta, offset),
    };
  };
  return {
    create: subject({}),
    createBounded: subject({ maxArtifactBytes: 64, maxPageLimit: 3, legacyListLimit: 5 }),
  };
}
