import { hasDownloadUrls, type Scope } from "@artifact-kit/core";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { freshBucket, newClient } from "./support/server.js";

// Why this adapter does not offer core's createDownloadUrl: a presigned URL of a published
// object would serve the whole object, and the object is more than the artifact. Should the
// layout ever store the bytes alone, this fails, and presigned URLs become possible.

const scope: Scope = { kind: "user", app: "links", user: "ana" };

describe("download URLs", () => {
  it("are not offered: the published object is the data followed by its manifest", async () => {
    const client = newClient();
    const bucket = await freshBucket(client);
    const service = new S3ArtifactService({ client, bucket, prefix: "p/" });
    const data = new TextEncoder().encode("the artifact's bytes");
    await service.put(scope, "report.txt", data, { mimeType: "text/plain" });
    expect(hasDownloadUrls(service)).toBe(false);
    expect(service.capabilities().downloadUrls).toBeUndefined();

    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "p/s/" }));
    const published = (listed.Contents ?? []).filter(({ Key }) => /\/n\//.test(Key ?? ""));
    expect(published).toHaveLength(1);
    const object = await client.send(
      new GetObjectCommand({ Bucket: bucket, Key: published[0]?.Key }),
    );
    const body = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    // What a presigned GetObject URL of it would serve: the data, then the trailer.
    expect(body.subarray(0, data.byteLength)).toEqual(Buffer.from(data));
    expect(body.byteLength).toBeGreaterThan(data.byteLength);
    expect(body.subarray(data.byteLength).toString("utf8")).toMatch(/"sha256"[\s\S]*\n$/);
    await service.close();
  });
});
