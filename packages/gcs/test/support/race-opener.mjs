// The gcs service the race workers of @artifact-kit/fault-trials open (see its put-worker).
import { Storage } from "@google-cloud/storage";
import { GcsArtifactService } from "../../dist/index.js";

export function openRaceService(endpoint, bucketName) {
  const storage = new Storage({ apiEndpoint: endpoint, projectId: "artifact-kit-test" });
  return new GcsArtifactService({
    bucket: storage.bucket(bucketName),
    maxContentionWaitMs: 600_000,
  });
}
