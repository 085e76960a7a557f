import type { ArtifactErrorCode, ArtifactService, GetOptions, Scope } from "@artifact-kit/core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ArtifactScopePlugin, toAdkArtifactService } from "../src/index.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";
import { APP, runTurn } from "./support/turn.js";

// An instruction placeholder naming an artifact ({artifact.<filename>}) is resolved by ADK
// through the invocation's artifact service: under the plugin, in the exact invocation scope.

const OWN = { appName: APP, userId: "ada", sessionId: "s1" };

let fs: BridgedFs;
beforeEach(async () => {
  fs = await bridgedFs();
  const save = (key: typeof OWN, filename: string, text: string) =>
    fs.adk.saveArtifact({ ...key, filename, artifact: { text } });
  await save(OWN, "brief.txt", "ada's brief for s1");
  await save({ ...OWN, sessionId: "s2" }, "brief.txt", "ada's brief for s2");
  await save({ ...OWN, userId: "eve" }, "brief.txt", "eve's brief");
  await save(OWN, "user:style.txt", "ada writes tersely");
  await save({ ...OWN, userId: "eve" }, "user:style.txt", "eve's style");
});
afterEach(() => fs.service.close());

type Read = [Scope, string, "ok" | ArtifactErrorCode];

/**
 * The fs service, recording the scope and name of every read, and what the bridge answers
 * at that moment to a request for another user: capability_denied when the read runs bound.
 */
function recordingReads(reads: Read[]): ArtifactService {
  return new Proxy(fs.service, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "get") return value.bind(target);
      return async (scope: Scope, name: string, options?: GetOptions) => {
        const elsewhere = fs.adk.listArtifactKeys({ ...OWN, userId: "eve" });
        reads.push([scope, name, await codeOf(elsewhere)]);
        return target.get(scope, name, options);
      };
    },
  });
}

it("resolves {artifact.<name>} placeholders in the invocation's own session and user scope", async () => {
  const reads: Read[] = [];
  const turn = await runTurn(
    {
      artifactService: toAdkArtifactService(recordingReads(reads)),
      tools: [],
      plugins: [new ArtifactScopePlugin()],
      instruction: "Brief: {artifact.brief.txt}\nStyle: {artifact.user:style.txt}",
    },
    [{ answer: "ok" }],
  );
  expect(turn.model.requests[0]?.config?.systemInstruction).toContain(
    "Brief: ada's brief for s1\nStyle: ada writes tersely",
  );
  expect(reads).toEqual([
    [{ kind: "session", app: APP, user: "ada", session: "s1" }, "brief.txt", "capability_denied"],
    [{ kind: "user", app: APP, user: "ada" }, "style.txt", "capability_denied"],
  ]);
});
