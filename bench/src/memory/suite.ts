import { MemoryArtifactService } from "@artifact-kit/memory";
import { InMemoryArtifactService } from "@google/adk";
import { AdkStore } from "../adk-store.js";
import { KitStore } from "../kit-store.js";
import type { StoreUnderTest } from "../store.js";
import { compare, type Row, type Suite } from "../suite.js";
import {
  getLatestWorkload,
  KiB,
  listVersionsWorkload,
  MiB,
  type PutBounds,
  payload,
  putWorkload,
} from "../workloads.js";
import { MemoryFloor } from "./floor.js";

/** Well inside the memory adapter's default quotas (25,000 versions and 256 MiB per scope). */
const PUT_BOUNDS: PutBounds = { maxBytes: 64 * MiB, maxVersions: 10_000 };
const GET_HISTORY = 10;
const LIST_HISTORY = 1_000;

/** Issue 2: the memory adapter beside `@google/adk`'s InMemoryArtifactService and a raw floor. */
export function memorySuite(): Suite {
  const stores: Record<string, StoreUnderTest> = {
    ours: new KitStore(async () => new MemoryArtifactService()),
    peer: new AdkStore(() => new InMemoryArtifactService(), { bytesInOut: false }),
    peerBytes: new AdkStore(() => new InMemoryArtifactService(), { bytesInOut: true }),
    floor: new MemoryFloor(),
  };
  const perStore = (build: (store: StoreUnderTest) => Row["workloads"][string]) =>
    Object.fromEntries(Object.entries(stores).map(([id, store]) => [id, build(store)]));
  const sizes = [
    { label: "1 KiB", bytes: payload(KiB), batch: 64 },
    { label: "64 KiB", bytes: payload(64 * KiB), batch: 4 },
    { label: "1 MiB", bytes: payload(MiB), batch: 1 },
  ];

  const putRows: Row[] = sizes.map(({ label, bytes, batch }) => ({
    label: `put ${label}`,
    batch,
    workloads: perStore((store) => putWorkload(store, bytes, PUT_BOUNDS)),
    ...(label === "1 KiB" && { target: { comparison: "vsPeer", bound: 0.5, holds: "atLeast" } }),
    ...(label === "1 MiB" && { target: { comparison: "vsFloor", bound: 1.3, holds: "atMost" } }),
  }));
  const getRows: Row[] = sizes.map(({ label, bytes, batch }) => ({
    label: `get latest ${label}`,
    batch,
    workloads: perStore((store) => getLatestWorkload(store, bytes, GET_HISTORY)),
    target: { comparison: "vsPeer", bound: 1, holds: "atLeast" },
  }));
  const listRow: Row = {
    label: "list versions of 1,000 (ours: a page of 100)",
    batch: 16,
    workloads: perStore((store) => listVersionsWorkload(store, LIST_HISTORY)),
  };

  return {
    title: "memory",
    columns: [
      { id: "ours", label: "ours (@artifact-kit/memory)" },
      { id: "peer", label: "peer (adk InMemory, Part as-is)" },
      { id: "peerBytes", label: "peer + base64 bytes in/out" },
      { id: "floor", label: "floor (Map + copy + SHA-256)" },
    ],
    comparisons: [
      compare("vsPeer", "ours/peer ops/s", "ours", "peer", "throughput"),
      compare("vsPeerBytes", "ours/peer+base64 ops/s", "ours", "peerBytes", "throughput"),
      compare("vsFloor", "ours/floor time", "ours", "floor", "time"),
    ],
    rows: [...putRows, ...getRows, listRow],
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
    },
  };
}
