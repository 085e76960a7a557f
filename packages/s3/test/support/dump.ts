import type { BucketDump } from "@artifact-kit/fault-trials";
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";

/** Every object under `prefix` (which ends in "/"), read with the raw SDK. */
export async function dumpPrefix(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<BucketDump> {
  const objects = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }),
    );
    for (const { Key } of page.Contents ?? []) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
      const body = await (object.Body?.transformToByteArray() ?? new Uint8Array());
      objects.push({
        key: (Key ?? "").slice(prefix.length),
        body: Buffer.from(body).toString("base64"),
        metadata: object.Metadata ?? {},
      });
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return { objects };
}

/** Writes a dump's objects under `prefix`, as they were. */
export async function restorePrefix(
  client: S3Client,
  bucket: string,
  prefix: string,
  dump: BucketDump,
): Promise<void> {
  for (const object of dump.objects) {
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: prefix + object.key,
        Body: Buffer.from(object.body, "base64"),
        Metadata: { ...object.metadata },
      }),
    );
  }
}
