import { S3ArtifactService } from "@artifact-kit/s3";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { benchClient, emptyBucket } from "../s3/client.js";
import { objectStoreScaleSuite } from "./object-store.js";

/** Issue 17 for s3: get and head of latest with 2 and with 1,000 versions, on moto. */
export function s3ScaleSuite(endpoint: string) {
  let buckets = 0;
  return objectStoreScaleSuite({
    title: "s3 at scale (moto)",
    endpoint,
    few: 2,
    // Fewer than gcs-scale's 2,500: moto stores every object in one Python process.
    many: 1_000,
    open: async (proxied) => {
      const client = benchClient(proxied);
      const bucket = `scale-${process.pid}-${buckets++}`;
      await emptyBucket(client, bucket);
      return {
        service: new S3ArtifactService({ client, bucket }),
        raw: {
          allNames: () => allKeys(client, bucket),
          listOne: (prefix) =>
            client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1 })),
          download: async (name) => {
            const reply = await client.send(new GetObjectCommand({ Bucket: bucket, Key: name }));
            return reply.Body?.transformToByteArray();
          },
        },
        close: async () => client.destroy(),
      };
    },
  });
}

async function allKeys(client: ReturnType<typeof benchClient>, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}
