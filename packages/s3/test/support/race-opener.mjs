// The s3 service the race workers of @artifact-kit/fault-trials open (see its put-worker).
import { S3Client } from "@aws-sdk/client-s3";
import { S3ArtifactService } from "../../dist/index.js";

export function openRaceService(endpoint, bucket) {
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  return new S3ArtifactService({ client, bucket, maxContentionWaitMs: 600_000 });
}
