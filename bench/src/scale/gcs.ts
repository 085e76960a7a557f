import { GcsArtifactService } from "@artifact-kit/gcs";
import { Storage } from "@google-cloud/storage";
import { emptyBucket, refuseEmulatorHostVariable } from "../gcs/bucket.js";
import { objectStoreScaleSuite } from "./object-store.js";

/** Issue 17: gcs get and head of latest with 2 and with 2,500 versions, on fake-gcs-server. */
export function gcsScaleSuite(endpoint: string) {
  refuseEmulatorHostVariable();
  let buckets = 0;
  return objectStoreScaleSuite({
    title: "gcs at scale (fake-gcs-server)",
    endpoint,
    few: 2,
    many: 2_500,
    open: async (proxied) => {
      const storage = new Storage({ apiEndpoint: proxied, projectId: "artifact-kit-bench" });
      const bucket = storage.bucket(`scale-${process.pid}-${buckets++}`);
      await emptyBucket(bucket);
      return {
        service: new GcsArtifactService({ bucket }),
        raw: {
          allNames: async () => (await bucket.getFiles())[0].map((file) => file.name),
          listOne: (prefix) => bucket.getFiles({ prefix, maxResults: 1, autoPaginate: false }),
          download: (name) => bucket.file(name).download(),
        },
      };
    },
  });
}
