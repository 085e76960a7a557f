import { type ObjectStoreOptions, objectStoreSuite } from "../object-store/suite.js";
import type { Suite } from "../suite.js";
import { s3Bucket } from "./client.js";

/** Issue 21: the s3 adapter beside raw client calls on the same S3-compatible server (moto). */
export function s3Suite(endpoint: string, options: ObjectStoreOptions): Promise<Suite> {
  return objectStoreSuite(
    {
      title: "s3",
      origin: endpoint,
      labels: {
        ours: "ours (@artifact-kit/s3)",
        floor: "floor (raw PutObject / GetObject / ListObjectsV2)",
      },
      bucket: s3Bucket,
    },
    options,
  );
}
