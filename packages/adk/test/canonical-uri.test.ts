import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ArtifactMeta, type Scope, scopeKey } from "@artifact-kit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ArtifactScopePlugin, toAdkArtifactService } from "../src/index.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";
import { APP, runTurn } from "./support/turn.js";

// Where an app can serve a version's exact bytes, the bridge reports that URI as ADK's
// canonicalUri, and ADK's saveInputBlobsAsArtifacts then refers the model to it (as with
// ADK's GCS service). Here a real HTTP server reads the bytes from the fs adapter.

const KEY = { appName: APP, userId: "ada", sessionId: "s1" };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 8, 7]);

let fs: BridgedFs;
let server: Server;
let base = "";
// The scopes the URIs name, by their key: the server looks a URI's scope up here.
const scopesByKey = new Map<string, Scope>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const [, key = "", name = "", version = ""] = (request.url ?? "")
      .split("/")
      .map(decodeURIComponent);
    const scope = scopesByKey.get(key);
    if (scope === undefined) return void response.writeHead(404).end();
    fs.service.get(scope, name, { version: Number(version) }).then(
      (artifact) =>
        response.writeHead(200, { "content-type": artifact.mimeType }).end(artifact.data),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(async () => {
  fs = await bridgedFs();
});
afterEach(() => fs.service.close());

const uriOf = (meta: ArtifactMeta) => {
  scopesByKey.set(scopeKey(meta.scope), meta.scope);
  return `${base}/${[scopeKey(meta.scope), meta.name, String(meta.version)].map(encodeURIComponent).join("/")}`;
};

describe("canonicalUri", () => {
  it("lets saveInputBlobsAsArtifacts refer the model to a URI that serves exactly the bytes", async () => {
    const adk = toAdkArtifactService(fs.service, { canonicalUri: uriOf });
    const turn = await runTurn(
      {
        artifactService: adk,
        tools: [],
        plugins: [new ArtifactScopePlugin()],
        runConfig: { saveInputBlobsAsArtifacts: true },
      },
      [{ answer: "got it" }],
      [
        { text: "my picture" },
        {
          inlineData: {
            data: PNG.toString("base64"),
            mimeType: "image/png",
            displayName: "me.png",
          },
        },
      ],
    );
    const session = await turn.sessionService.getSession(KEY);
    const parts = session?.events[0]?.content?.parts;
    const uri = parts?.[2]?.fileData?.fileUri ?? "";
    expect(parts).toEqual([
      { text: "my picture" },
      { text: '[Uploaded Artifact: "me.png"]' },
      { fileData: { fileUri: uri, mimeType: "image/png", displayName: "me.png" } },
    ]);
    const fetched = await fetch(uri);
    expect([fetched.headers.get("content-type"), Buffer.from(await fetched.arrayBuffer())]).toEqual(
      ["image/png", PNG],
    );
    expect(await adk.getArtifactVersion({ ...KEY, filename: "me.png" })).toEqual({
      version: 0,
      mimeType: "image/png",
      canonicalUri: uri,
    });
    expect((await adk.listArtifactVersions({ ...KEY, filename: "me.png" }))[0]?.canonicalUri).toBe(
      uri,
    );
  });

  it("is absent unless the app gives one, and then the upload stays a plain placeholder", async () => {
    const turn = await runTurn(
      { artifactService: fs.adk, tools: [], runConfig: { saveInputBlobsAsArtifacts: true } },
      [{ answer: "got it" }],
      [
        {
          inlineData: {
            data: PNG.toString("base64"),
            mimeType: "image/png",
            displayName: "me.png",
          },
        },
      ],
    );
    const session = await turn.sessionService.getSession(KEY);
    expect(session?.events[0]?.content?.parts).toEqual([{ text: '[Uploaded Artifact: "me.png"]' }]);
    expect(await fs.adk.getArtifactVersion({ ...KEY, filename: "me.png" })).toEqual({
      version: 0,
      mimeType: "image/png",
    });
  });

  it("refuses options that are not a URI function", async () => {
    expect(
      await codeOf(
        Promise.resolve().then(() =>
          toAdkArtifactService(fs.service, { canonicalUri: "x" as never }),
        ),
      ),
    ).toBe("invalid_argument");
    expect(
      await codeOf(
        Promise.resolve().then(() => toAdkArtifactService(fs.service, { uri: uriOf } as never)),
      ),
    ).toBe("invalid_argument");
  });
});
