import type { Scope } from "@artifact-kit/core";
import { failure } from "@artifact-kit/fault-trials";
import type { Bucket } from "@google-cloud/storage";
import { beforeEach, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { freshBucket } from "./support/emulator.js";

const alice: Scope = { kind: "user", app: "app", user: "alice" };
const mallory: Scope = { kind: "user", app: "app", user: "mallory" };
const bytes = (text: string) => new TextEncoder().encode(text);

describe("objects written straight into the bucket", () => {
  let bucket: Bucket;
  let service: GcsArtifactService;

  beforeEach(async () => {
    bucket = await freshBucket();
    service = new GcsArtifactService({ bucket });
  });

  /** The one published object of the bucket whose name contains `marker`. */
  async function published(marker: string) {
    const [files] = await bucket.getFiles();
    const file = files.find(
      (candidate) => candidate.name.includes("/n/") && candidate.name.includes(marker),
    );
    if (!file) throw new Error("no published object");
    return file;
  }

  it("data that no longer matches its digest is corrupt_artifact", async () => {
    await service.put(alice, "report", bytes("hello"));
    const file = await published("");
    const [body] = await file.download();
    body[body.length - 1] = "j".charCodeAt(0); // same size, other bytes
    await file.save(body, { resumable: false, metadata: { metadata: file.metadata.metadata } });
    expect((await failure(service.get(alice, "report"))).code).toBe("corrupt_artifact");
    expect((await failure(service.get(alice, "report", { version: 1 }))).code).toBe(
      "corrupt_artifact",
    );
  });

  it("a manifest copied under another scope is corrupt_artifact there", async () => {
    await service.put(alice, "report", bytes("secret"));
    await service.put(mallory, "other", bytes("x"));
    const source = await published("");
    const [files] = await bucket.getFiles();
    const mallorysObject = files.find((f) => f.name.includes("/n/") && f.name !== source.name);
    if (!mallorysObject) throw new Error("no object of mallory");
    const target = mallorysObject.name.replace(
      /\/n\/.*$/,
      source.name.slice(source.name.indexOf("/n/")),
    );
    await source.copy(bucket.file(target));
    for (const read of [
      () => service.get(mallory, "report"),
      () => service.head(mallory, "report"),
      () => service.listVersions(mallory, "report"),
      () => service.list(mallory),
    ]) {
      expect((await failure(read())).code).toBe("corrupt_artifact");
    }
    expect(new TextDecoder().decode((await service.get(alice, "report")).data)).toBe("secret");
  });
});
