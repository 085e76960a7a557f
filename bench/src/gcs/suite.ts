import { GcsArtifactService } from "@artifact-kit/gcs";
import { GcsArtifactService as AdkGcsArtifactService, LogLevel, setLogLevel } from "@google/adk";
import { Storage } from "@google-cloud/storage";
import { AdkStore } from "../adk-store.js";
import { KitStore } from "../kit-store.js";
import type { Workload } from "../measure.js";
import type { StoreUnderTest } from "../store.js";
import type { Row, Suite } from "../suite.js";
import {
  getLatestWorkload,
  KiB,
  listVersionsWorkload,
  MiB,
  type PutBounds,
  payload,
  putWorkload,
} from "../workloads.js";
import { emptyBucket, refuseEmulatorHostVariable } from "./bucket.js";
import { CountingProxy } from "./counting-proxy.js";
import { RawGcsFloor } from "./floor.js";
import { RequestTally } from "./request-tally.js";

const PROJECT = "artifact-kit-bench";
/**
 * The emulator keeps every object in memory, and the peer lists every version of a name on
 * each put, so stores are emptied (untimed) often.
 */
const PUT_BOUNDS: PutBounds = { maxBytes: 64 * MiB, maxVersions: 100 };
const GET_HISTORY = 2;
const LIST_HISTORY = 100;

const COLUMNS = [
  { id: "ours", label: "ours (@artifact-kit/gcs)" },
  { id: "peer", label: "peer (adk GcsArtifactService)" },
  { id: "floor", label: "floor (raw file.save / file.download / getFiles)" },
] as const;

/**
 * Issue 4: the gcs adapter beside `@google/adk`'s GcsArtifactService and raw client calls,
 * all on fake-gcs-server at `endpoint`, each in its own bucket, through one counting proxy.
 */
export async function gcsSuite(endpoint: string): Promise<Suite> {
  refuseEmulatorHostVariable();
  // The peer logs a warning for every artifact it fails to load; the suite fails on that anyway.
  setLogLevel(LogLevel.ERROR);
  const proxy = await CountingProxy.start(endpoint);
  const clientOptions = { apiEndpoint: proxy.endpoint, projectId: PROJECT };
  const storage = new Storage(clientOptions);
  const oursBucket = storage.bucket("ak-bench-ours");
  const peerBucket = storage.bucket("ak-bench-peer");
  const stores: Record<string, StoreUnderTest> = {
    ours: new KitStore(async () => {
      await emptyBucket(oursBucket);
      return new GcsArtifactService({ bucket: oursBucket });
    }),
    peer: new AdkStore(() => new AdkGcsArtifactService(peerBucket.name, clientOptions), {
      bytesInOut: false,
      clear: () => emptyBucket(peerBucket),
    }),
    floor: new RawGcsFloor(storage.bucket("ak-bench-floor")),
  };
  const tally = new RequestTally(proxy);
  const row = (label: string, build: (store: StoreUnderTest) => Workload): Row => ({
    label,
    batch: 1,
    workloads: Object.fromEntries(
      Object.entries(stores).map(([id, store]) => [id, tally.counted(label, id, build(store))]),
    ),
  });
  const rows = [
    row("put 4 KiB", (store) => putWorkload(store, payload(4 * KiB), PUT_BOUNDS)),
    row("put 1 MiB", (store) => putWorkload(store, payload(MiB), PUT_BOUNDS)),
    row("get latest 4 KiB", (store) => getLatestWorkload(store, payload(4 * KiB), GET_HISTORY)),
    row("get latest 1 MiB", (store) => getLatestWorkload(store, payload(MiB), GET_HISTORY)),
    row(`list versions of ${LIST_HISTORY}`, (store) => listVersionsWorkload(store, LIST_HISTORY)),
  ];
  return {
    title: "gcs",
    columns: COLUMNS,
    comparisons: [
      {
        id: "vsPeer",
        label: "ours/peer ops/s",
        subject: "ours",
        baseline: "peer",
        metric: "throughput",
      },
      {
        id: "vsFloor",
        label: "ours/floor time",
        subject: "ours",
        baseline: "floor",
        metric: "time",
      },
    ],
    rows,
    appendix: () =>
      tally.table(
        rows.map((counted) => counted.label),
        COLUMNS,
      ),
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      await proxy.close();
    },
  };
}
