import { S3ArtifactService } from "@artifact-kit/s3";
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { BenchBucket } from "../object-store/bucket.js";

/** A client of an S3-compatible server at `endpoint` (moto in CI; credentials are unchecked). */
export function benchClient(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  });
}

/** Creates `bucket` if needed and removes every object in it. */
export async function emptyBucket(client: S3Client, bucket: string): Promise<void> {
  await client.send(new CreateBucketCommand({ Bucket: bucket })).catch((error: unknown) => {
    const code = (error as { name?: string }).name;
    if (code !== "BucketAlreadyOwnedByYou" && code !== "BucketAlreadyExists") throw error;
  });
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (page.Contents ?? []).flatMap((object) =>
      object.Key ? [{ Key: object.Key }] : [],
    );
    if (keys.length === 0) return;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
}

/** `bucket` on the server at `endpoint`, over a client of its own (PutObject, GetObject, ListObjectsV2). */
export function s3Bucket(endpoint: string, bucket: string): BenchBucket {
  const client = benchClient(endpoint);
  const list = (prefix: string | undefined, max?: number, token?: string) =>
    client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        ...(prefix !== undefined && { Prefix: prefix }),
        ...(max !== undefined && { MaxKeys: max }),
        ...(token !== undefined && { ContinuationToken: token }),
      }),
    );
  return {
    empty: () => emptyBucket(client, bucket),
    service: (bounds) => new S3ArtifactService({ client, bucket, ...bounds }),
    put: (key, bytes) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes })),
    get: async (key) => {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return object.Body?.transformToByteArray();
    },
    list: (prefix, max) => list(prefix, max),
    names: async () => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await list(undefined, undefined, token);
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.NextContinuationToken;
      } while (token);
      return keys;
    },
    close: async () => client.destroy(),
  };
}
