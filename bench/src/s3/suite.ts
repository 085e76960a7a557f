import { S3ArtifactService } from "@artifact-kit/s3";
import type { S3Client } from "@aws-sdk/client-s3";
import { CountingProxy } from "../gcs/counting-proxy.js";
import { RequestTally } from "../gcs/request-tally.js";
import { KitStore } from "../kit-store.js";
import { objectStoreRows } from "../object-store-rows.js";
import type { StoreUnderTest } from "../store.js";
import type { Suite } from "../suite.js";
import { KiB, payload } from "../workloads.js";
import { benchClient, emptyBucket } from "./client.js";
import { RawS3Floor } from "./floor.js";

/** The bound: a put is an allocation and a publication, nothing more. */
const MAX_REQUESTS_PER_PUT = 2;
/** Issue 36: a page of versions is a few requests (its listing, the chunks', a chunk or two). */
const MAX_REQUESTS_PER_PAGE = 4;
const PAGE_VERSIONS = 100;

const COLUMNS = [
  { id: "ours", label: "ours (@artifact-kit/s3)" },
  { id: "floor", label: "floor (raw PutObject / GetObject / ListObjectsV2)" },
] as const;

/**
 * Issue 21: the s3 adapter beside raw client calls on the same S3-compatible server at
 * `endpoint` (moto), each in its own bucket, through one counting proxy.
 */
export async function s3Suite(endpoint: string): Promise<Suite> {
  const proxy = await CountingProxy.start(endpoint);
  const client = benchClient(proxy.endpoint);
  const stores: Record<string, StoreUnderTest> = {
    ours: new KitStore(async () => {
      await emptyBucket(client, "ak-bench-ours");
      return new S3ArtifactService({ client, bucket: "ak-bench-ours" });
    }),
    floor: new RawS3Floor(client, "ak-bench-floor"),
  };
  const steadyPut = await steadyRequestsPerPut(proxy, client);
  const page = await requestsPerPage(proxy, client);
  const tally = new RequestTally(proxy);
  const rows = objectStoreRows(stores, tally);
  return {
    title: "s3",
    columns: COLUMNS,
    comparisons: [
      {
        id: "vsFloor",
        label: "ours/floor time",
        subject: "ours",
        baseline: "floor",
        metric: "time",
      },
    ],
    rows,
    appendix: () => {
      const table = tally.table(
        rows.map((counted) => counted.label),
        COLUMNS,
      );
      const verdict = steadyPut <= MAX_REQUESTS_PER_PUT ? "PASS" : "MISS";
      const pageVerdict = page.warm <= MAX_REQUESTS_PER_PAGE ? "PASS" : "MISS";
      return [
        table,
        "",
        `requests per put in steady state (ours, 20 puts after the first): ${steadyPut.toFixed(2)}, target <= ${MAX_REQUESTS_PER_PUT}: ${verdict}`,
        `requests per listVersions page of ${PAGE_VERSIONS} (ours): ${page.cold} on the first read (it writes the record chunk), then ${page.warm}, target <= ${MAX_REQUESTS_PER_PAGE}: ${pageVerdict}`,
      ].join("\n");
    },
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      await proxy.close();
    },
  };
}

/** Untimed: the mean requests of 20 puts to a name after its first put (which lists once). */
async function steadyRequestsPerPut(proxy: CountingProxy, client: S3Client): Promise<number> {
  await emptyBucket(client, "ak-bench-count");
  const service = new S3ArtifactService({ client, bucket: "ak-bench-count" });
  const scope = { kind: "app", app: "bench" } as const;
  await service.put(scope, "counted", payload(KiB));
  const before = proxy.requests;
  for (let i = 0; i < 20; i += 1) await service.put(scope, "counted", payload(KiB));
  const perPut = (proxy.requests - before) / 20;
  await service.close();
  await emptyBucket(client, "ak-bench-count");
  return perPut;
}

/**
 * Untimed: the requests of one listVersions page of 100 versions, the first time it is read
 * (which writes the range's record chunk) and the next.
 */
async function requestsPerPage(
  proxy: CountingProxy,
  client: S3Client,
): Promise<{ cold: number; warm: number }> {
  await emptyBucket(client, "ak-bench-count");
  const service = new S3ArtifactService({ client, bucket: "ak-bench-count" });
  const scope = { kind: "app", app: "bench" } as const;
  for (let i = 0; i < PAGE_VERSIONS; i += 1) await service.put(scope, "paged", payload(64));
  const counted = async () => {
    const before = proxy.requests;
    await service.listVersions(scope, "paged", { limit: PAGE_VERSIONS });
    return proxy.requests - before;
  };
  const cold = await counted();
  const warm = await counted();
  await service.close();
  await emptyBucket(client, "ak-bench-count");
  return { cold, warm };
}
