import { GcsArtifactService } from "@artifact-kit/gcs";
import { Storage } from "@google-cloud/storage";
import { emptyBucket, refuseEmulatorHostVariable } from "../gcs/bucket.js";
import { BENCH_SCOPE } from "../kit-store.js";
import { fillVersions, growthSuite } from "./growth.js";

const FEW = 2;
const MANY = 2_500;

/** Issue 17: gcs get and head of latest with 2 and with 2,500 versions, on fake-gcs-server. */
export function gcsScaleSuite(endpoint: string) {
  refuseEmulatorHostVariable();
  const storage = new Storage({ apiEndpoint: endpoint, projectId: "artifact-kit-bench" });
  let buckets = 0;
  return growthSuite({
    title: "gcs at scale (fake-gcs-server)",
    sizes: { small: `${FEW} versions`, large: `${MANY} versions` },
    open: async () => {
      const bucket = storage.bucket(`scale-${process.pid}-${buckets++}`);
      await emptyBucket(bucket);
      return new GcsArtifactService({ bucket });
    },
    rows: [
      {
        label: "get latest",
        small: (service) => fillVersions(service, "doc", FEW, 16),
        large: (service) => fillVersions(service, "doc", MANY, 16),
        probe: (service) => service.get(BENCH_SCOPE, "doc"),
        bound: 1.5,
      },
      {
        label: "head latest",
        small: (service) => fillVersions(service, "doc", FEW, 16),
        large: (service) => fillVersions(service, "doc", MANY, 16),
        probe: (service) => service.head(BENCH_SCOPE, "doc"),
        bound: 1.5,
      },
    ],
  });
}
