import { hasDownloadUrls, type Scope } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { freshBucket } from "./support/emulator.js";

// Why this adapter does not offer core's createDownloadUrl: a signed URL of a published
// object would serve the whole object, and the object is more than the artifact. Should the
// layout ever store the bytes alone, this fails, and signed URLs become possible.

const scope: Scope = { kind: "user", app: "links", user: "ana" };

describe("download URLs", () => {
  it("are not offered: the published object is its manifest line, then the data", async () => {
    const bucket = await freshBucket();
    const service = new GcsArtifactService({ bucket, prefix: "p/" });
    const data = new TextEncoder().encode("the artifact's bytes");
    await service.put(scope, "report.txt", data, { mimeType: "text/plain" });
    expect(hasDownloadUrls(service)).toBe(false);
    expect(service.capabilities().downloadUrls).toBeUndefined();

    const [files] = await bucket.getFiles({ prefix: "p/s/" });
    const published = files.filter((file) => /\/n\//.test(file.name));
    expect(published).toHaveLength(1);
    // What a signed URL of it would serve: the manifest line, then the data.
    const [body] = (await published[0]?.download()) ?? [Buffer.alloc(0)];
    const newline = body.indexOf(0x0a);
    expect(body.subarray(0, newline).toString("utf8")).toMatch(/^\{.*"sha256"/);
    expect(body.subarray(newline + 1)).toEqual(Buffer.from(data));
    await service.close();
  });
});
