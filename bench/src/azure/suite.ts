import { AzureArtifactService } from "@artifact-kit/azure";
import type { ContainerClient } from "@azure/storage-blob";
import { CountingProxy } from "../gcs/counting-proxy.js";
import { RequestTally } from "../gcs/request-tally.js";
import { KitStore } from "../kit-store.js";
import { objectStoreRows } from "../object-store-rows.js";
import type { StoreUnderTest } from "../store.js";
import type { Suite } from "../suite.js";
import { KiB, payload } from "../workloads.js";
import { benchContainer, blobOrigin, emptyContainer } from "./client.js";
import { RawAzureFloor } from "./floor.js";

/** The bound: a put is an allocation and a publication, nothing more. */
const MAX_REQUESTS_PER_PUT = 2;

const COLUMNS = [
  { id: "ours", label: "ours (@artifact-kit/azure)" },
  { id: "floor", label: "floor (raw Put Blob / Get Blob / List Blobs)" },
] as const;

/**
 * Issue 36: the azure adapter beside raw client calls on the same blob service (Azurite),
 * each in its own container, through one counting proxy.
 */
export async function azureSuite(connectionString: string): Promise<Suite> {
  const proxy = await CountingProxy.start(blobOrigin(connectionString));
  const container = (name: string) => benchContainer(connectionString, proxy.endpoint, name);
  const stores: Record<string, StoreUnderTest> = {
    ours: new KitStore(async () => {
      const ours = container("ak-bench-ours");
      await emptyContainer(ours);
      return new AzureArtifactService({ container: ours });
    }),
    floor: new RawAzureFloor(container("ak-bench-floor")),
  };
  const steadyPut = await steadyRequestsPerPut(proxy, container("ak-bench-count"));
  const tally = new RequestTally(proxy);
  const rows = objectStoreRows(stores, tally);
  return {
    title: "azure",
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
      return `${table}\n\nrequests per put in steady state (ours, 20 puts after the first): ${steadyPut.toFixed(2)}, target <= ${MAX_REQUESTS_PER_PUT}: ${verdict}`;
    },
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      await proxy.close();
    },
  };
}

/** Untimed: the mean requests of 20 puts to a name after its first put (which lists once). */
async function steadyRequestsPerPut(
  proxy: CountingProxy,
  container: ContainerClient,
): Promise<number> {
  await emptyContainer(container);
  const service = new AzureArtifactService({ container });
  const scope = { kind: "app", app: "bench" } as const;
  await service.put(scope, "counted", payload(KiB));
  const before = proxy.requests;
  for (let i = 0; i < 20; i += 1) await service.put(scope, "counted", payload(KiB));
  const perPut = (proxy.requests - before) / 20;
  await service.close();
  await emptyContainer(container);
  return perPut;
}
