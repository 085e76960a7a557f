import type { Scope } from "@artifact-kit/core";
import { S3ArtifactService } from "@artifact-kit/s3";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";

// The endpoint of the moto server .ci/run started (packages/s3/scripts/start-moto.sh).
const endpoint = process.env.S3_ENDPOINT;
if (!endpoint) throw new Error("S3_ENDPOINT is not set: start moto first");
const client = new S3Client({
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  credentials: { accessKeyId: "smoke", secretAccessKey: "smoke" },
});
const bucket = `smoke-${process.pid}-${Date.now()}`;
await client.send(new CreateBucketCommand({ Bucket: bucket }));
const service = await S3ArtifactService.open({ client, bucket });
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
const artifact = await service.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await service.close();
console.log(`s3: put v${meta.version} through @aws-sdk/client-s3 and read it back`);
