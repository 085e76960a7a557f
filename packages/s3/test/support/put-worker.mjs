// One OS process of the cross-process race: `node put-worker.mjs <endpoint> <bucket> <name> <count>`
// puts <count> artifacts concurrently (every other one a streamed upload) and prints their
// versions as JSON.
import { S3Client } from "@aws-sdk/client-s3";
import { S3ArtifactService } from "../../dist/index.js";

const [endpoint, bucket, name, count] = process.argv.slice(2);
const client = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "test", secretAccessKey: "test" },
});
const service = new S3ArtifactService({ client, bucket, maxPutAttempts: 32 });
const scope = { kind: "app", app: "race" };
const data = (i) => new TextEncoder().encode(`${process.pid}:${i}`);
async function streamed(i) {
  const upload = await service.openUpload(scope, name);
  await upload.write(data(i));
  return upload.finish();
}
const puts = Array.from({ length: Number(count) }, (_, i) =>
  i % 2 ? streamed(i) : service.put(scope, name, data(i)),
);
const metas = await Promise.all(puts);
process.stdout.write(JSON.stringify(metas.map((meta) => meta.version)));
