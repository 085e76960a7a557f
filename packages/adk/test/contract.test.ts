import type { BaseArtifactService } from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SUBJECTS, type Subject } from "./support/subjects.js";

// What ADK's BaseArtifactService contract defines, asserted identically on both services.

const KEY = { appName: "app", userId: "ada", sessionId: "s1" };
const OTHER_SESSION = { ...KEY, sessionId: "s2" };
const OTHER_USER = { ...KEY, userId: "bob" };
const text = (value: string) => ({ text: value });
const inline = (bytes: number[], mimeType: string) => ({
  inlineData: { data: Buffer.from(bytes).toString("base64"), mimeType },
});

describe.each(SUBJECTS)("ADK's artifact contract on %s", (_label, create) => {
  let subject: Subject;
  let adk: BaseArtifactService;
  beforeEach(async () => {
    subject = await create();
    adk = subject.adk;
  });
  afterEach(() => subject.close());

  it("numbers versions from 0 and loads the latest or a given one", async () => {
    expect(await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("one") })).toBe(0);
    expect(await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("two") })).toBe(1);
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt" })).toEqual(text("two"));
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt", version: 0 })).toEqual(text("one"));
    expect(await adk.listVersions({ ...KEY, filename: "a.txt" })).toEqual([0, 1]);
  });

  it("answers a missing artifact or version with undefined or an empty list", async () => {
    await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("one") });
    expect(await adk.loadArtifact({ ...KEY, filename: "nope" })).toBeUndefined();
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt", version: 7 })).toBeUndefined();
    expect(await adk.getArtifactVersion({ ...KEY, filename: "nope" })).toBeUndefined();
    expect(await adk.getArtifactVersion({ ...KEY, filename: "a.txt", version: 7 })).toBeUndefined();
    expect(await adk.listVersions({ ...KEY, filename: "nope" })).toEqual([]);
    expect(await adk.listArtifactVersions({ ...KEY, filename: "nope" })).toEqual([]);
    await expect(adk.deleteArtifact({ ...KEY, filename: "nope" })).resolves.toBeUndefined();
  });

  it("keeps an inline Part's bytes, MIME type and display name", async () => {
    const part = {
      inlineData: {
        ...inline([0x89, 0x50, 0x4e, 0x47], "image/png").inlineData,
        displayName: "logo",
      },
    };
    await adk.saveArtifact({ ...KEY, filename: "logo.png", artifact: part });
    expect(await adk.loadArtifact({ ...KEY, filename: "logo.png" })).toEqual(part);
  });

  it("keeps a file reference Part", async () => {
    const part = { fileData: { fileUri: "gs://bucket/video.mp4", mimeType: "video/mp4" } };
    await adk.saveArtifact({ ...KEY, filename: "video", artifact: part });
    expect(await adk.loadArtifact({ ...KEY, filename: "video" })).toEqual(part);
  });

  it("scopes session artifacts to the session and user: artifacts to the user", async () => {
    await adk.saveArtifact({ ...KEY, filename: "notes.txt", artifact: text("session") });
    await adk.saveArtifact({ ...KEY, filename: "user:prefs.json", artifact: text("{}") });
    expect(await adk.listArtifactKeys(KEY)).toEqual(["notes.txt", "user:prefs.json"]);
    expect(await adk.listArtifactKeys(OTHER_SESSION)).toEqual(["user:prefs.json"]);
    expect(await adk.listArtifactKeys(OTHER_USER)).toEqual([]);
    expect(await adk.loadArtifact({ ...OTHER_SESSION, filename: "user:prefs.json" })).toEqual(
      text("{}"),
    );
    expect(await adk.loadArtifact({ ...OTHER_SESSION, filename: "notes.txt" })).toBeUndefined();
  });

  it("keeps customMetadata per version", async () => {
    const customMetadata = { source: "upload", tags: ["a", "b"], nested: { n: 1 } };
    await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("one"), customMetadata });
    await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("two") });
    expect(await adk.getArtifactVersion({ ...KEY, filename: "a.txt", version: 0 })).toMatchObject({
      version: 0,
      customMetadata,
    });
    const versions = await adk.listArtifactVersions({ ...KEY, filename: "a.txt" });
    expect(versions.map((v) => [v.version, v.customMetadata])).toEqual([
      [0, customMetadata],
      [1, undefined],
    ]);
    expect(await adk.getArtifactVersion({ ...KEY, filename: "a.txt" })).toMatchObject({
      version: 1,
    });
  });

  it("deletes every version of an artifact", async () => {
    await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("one") });
    await adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: text("two") });
    await adk.deleteArtifact({ ...KEY, filename: "a.txt" });
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt" })).toBeUndefined();
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt", version: 0 })).toBeUndefined();
    expect(await adk.listVersions({ ...KEY, filename: "a.txt" })).toEqual([]);
    expect(await adk.listArtifactKeys(KEY)).toEqual([]);
  });

  it("rejects a Part with no content", async () => {
    await expect(adk.saveArtifact({ ...KEY, filename: "a", artifact: {} })).rejects.toThrow(
      "Artifact must have either inlineData or text content.",
    );
    expect(await adk.listArtifactKeys(KEY)).toEqual([]);
  });
});
