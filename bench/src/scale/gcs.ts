import { GcsArtifactService } from "@artifact-kit/gcs";
import { Storage } from "@google-cloud/storage";
import { emptyBucket, refuseEmulatorHostVariable } from "../gcs/bucket.js";
import { growthSuite, latestAtScaleRows } from "./growth.js";

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
    rows: latestAtScaleRows(FEW, MANY),
  });
}
