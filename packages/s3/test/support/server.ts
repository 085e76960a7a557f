import { randomUUID } from "node:crypto";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { inject } from "vitest";

export const endpoint = (): string => inject("s3Endpoint");

/** A client of the server (or of a proxy in front of it), with quick retries for fault tests. */
export function newClient(at = endpoint()): S3Client {
  return new S3Client({
    endpoint: at,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 4,
  });
}

/** A new, empty bucket on the server. */
export async function freshBucket(client = newClient()): Promise<string> {
  const bucket = `ak-${randomUUID()}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}
