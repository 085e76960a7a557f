import { GcsArtifactService } from "@artifact-kit/gcs";
import { GcsArtifactService as AdkGcsArtifactService, LogLevel, setLogLevel } from "@google/adk";
import { Storage } from "@google-cloud/storage";
import { AdkStore } from "../adk-store.js";
import { KitStore } from "../kit-store.js";
import { objectStoreRows } from "../object-store-rows.js";
import type { StoreUnderTest } from "../store.js";
import type { Suite } from "../suite.js";
import { emptyBucket, refuseEmulatorHostVariable } from "./bucket.js";
import { CountingProxy } from "./counting-proxy.js";
import { RawGcsFloor } from "./floor.js";
import { RequestTally } from "./request-tally.js";

const PROJECT = "artifact-kit-bench";

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
  const rows = objectStoreRows(stores, tally);
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
