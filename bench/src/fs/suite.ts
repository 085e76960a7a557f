import { FsArtifactService, type FsDurability } from "@artifact-kit/fs";
import { FileArtifactService, LogLevel, setLogLevel } from "@google/adk";
import { AdkStore } from "../adk-store.js";
import { KitStore } from "../kit-store.js";
import { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";
import { compare, type Row, type Suite } from "../suite.js";
import { getLatestWorkload, KiB, MiB, type PutBounds, payload, putWorkload } from "../workloads.js";
import { CacacheStore } from "./cacache-store.js";
import { fanOutWorkload } from "./fan-out.js";
import { DurableFileFloor } from "./floor.js";

/** Below the fs adapter's default lifetime ceiling of 10,000 versions per name. */
const PUT_BOUNDS: PutBounds = { maxBytes: 256 * MiB, maxVersions: 2_000 };
const GET_HISTORY = 2;

/** Opens our adapter on a fresh directory of `owner`, replacing the one it had. */
export const openOurs =
  (scratch: ScratchSpace, owner: string, durability: FsDurability = "durable") =>
  () =>
    FsArtifactService.open({ root: scratch.fresh(owner), durability });

/**
 * Issues 3 and 35: the fs adapter, durable and under "process" durability (no fsync), beside
 * `@google/adk`'s FileArtifactService, cacache and a durable-write floor.
 */
export function fsSuite(): Suite {
  // The peer logs a warning on the first save of every name (it lists a versions directory
  // that does not exist yet): its normal path, which would bury the table.
  setLogLevel(LogLevel.ERROR);
  const scratch = new ScratchSpace();
  const stores: Record<string, StoreUnderTest> = {
    ours: new KitStore(openOurs(scratch, "ours")),
    process: new KitStore(openOurs(scratch, "ours-process", "process")),
    peer: new AdkStore(() => new FileArtifactService(scratch.fresh("peer")), {
      bytesInOut: false,
    }),
    floor: new DurableFileFloor(scratch),
    cacache: new CacacheStore(scratch),
  };
  const perStore = (build: (store: StoreUnderTest) => Row["workloads"][string]) =>
    Object.fromEntries(Object.entries(stores).map(([id, store]) => [id, build(store)]));
  const put = (label: string, size: number): Row => ({
    label: `durable put ${label}`,
    batch: 1,
    workloads: perStore((store) => putWorkload(store, payload(size), PUT_BOUNDS)),
    target: { comparison: "timeVsFloor", bound: size === 4 * KiB ? 1.3 : 1.5, holds: "atMost" },
  });
  const get = (label: string, size: number): Row => ({
    label: `get ${label}`,
    batch: 1,
    workloads: perStore((store) => getLatestWorkload(store, payload(size), GET_HISTORY)),
    target: { comparison: "rateVsFloor", bound: 0.9, holds: "atLeast" },
  });

  return {
    title: "fs",
    columns: [
      { id: "ours", label: "ours (@artifact-kit/fs)" },
      { id: "process", label: 'ours, durability "process" (no fsync)' },
      { id: "peer", label: "peer (adk FileArtifactService, no fsync)" },
      { id: "floor", label: "floor (fsync'd write + rename / read + SHA-256)" },
      { id: "cacache", label: "cacache (npm's cache, no fsync; reads verified)" },
    ],
    comparisons: [
      compare("timeVsFloor", "ours/floor time", "ours", "floor", "time"),
      compare("rateVsFloor", "ours/floor ops/s", "ours", "floor", "throughput"),
      compare("vsCacache", "ours/cacache ops/s", "ours", "cacache", "throughput"),
      compare("vsPeer", "ours/peer ops/s", "ours", "peer", "throughput"),
      compare("processVsPeer", '"process"/peer ops/s', "process", "peer", "throughput"),
      compare("processVsCacache", '"process"/cacache ops/s', "process", "cacache", "throughput"),
    ],
    rows: [put("4 KiB", 4 * KiB), put("1 MiB", MiB), get("1 MiB", MiB), get("64 MiB", 64 * MiB)],
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      scratch.close();
    },
  };
}

/** Issue 3: 16 puts of 4 KiB into 16 independent scopes at once vs into one scope. */
export function fsScopesSuite(): Suite {
  const scratch = new ScratchSpace();
  const bytes = payload(4 * KiB);
  const writers = 16;
  return {
    title: "fs scopes",
    // One operation is 16 fsync'd puts (tens of ms) and the disk is shared: take more samples.
    minSamples: 20,
    columns: [
      { id: "serial", label: "1 scope, one put at a time" },
      { id: "oneScope", label: "1 scope, 16 at once" },
      { id: "scopes", label: "16 scopes, 16 at once" },
    ],
    comparisons: [
      compare("vsSerial", "16 scopes / one at a time", "scopes", "serial", "throughput"),
      compare("vsOneScope", "16 scopes / 1 scope", "scopes", "oneScope", "throughput"),
    ],
    rows: [
      {
        label: "16 durable puts of 4 KiB (one op = all 16)",
        batch: 1,
        workloads: {
          serial: fanOutWorkload(openOurs(scratch, "serial"), bytes, {
            writers,
            scopes: 1,
            concurrent: false,
          }),
          oneScope: fanOutWorkload(openOurs(scratch, "oneScope"), bytes, {
            writers,
            scopes: 1,
            concurrent: true,
          }),
          scopes: fanOutWorkload(openOurs(scratch, "scopes"), bytes, {
            writers,
            scopes: 16,
            concurrent: true,
          }),
        },
      },
    ],
    close: async () => scratch.close(),
  };
}
