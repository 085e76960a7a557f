import { sha256Hex } from "@artifact-kit/core";
import type { Event } from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ARTIFACT_EFFECTS_KEY,
  ArtifactScopePlugin,
  type ToolArtifacts,
  withArtifactAuthority,
} from "../src/index.js";
import { CallbackTool } from "./support/artifact-tools.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";
import { APP, runTurn, toolResponses } from "./support/turn.js";

// Declared tool authority (one capability per call, revoked when it returns) and the
// metadata-only effects each tool call's mutations leave on its event.

const KEY = { appName: APP, userId: "ada", sessionId: "s1" };
const bytes = (text: string) => new TextEncoder().encode(text);

let fs: BridgedFs;
beforeEach(async () => {
  fs = await bridgedFs();
});
afterEach(() => fs.service.close());

/** A tool whose body gets a declared capability, run by a real Runner with the plugin. */
function declaredTool<Result>(
  name: string,
  allow: Parameters<typeof withArtifactAuthority>[1]["allow"],
  body: (
    artifacts: ToolArtifacts<"put" | "get" | "list" | "listVersions" | "delete" | "attach">,
  ) => Promise<Result>,
  scope: "session" | "user" = "session",
) {
  const execute = withArtifactAuthority(fs.service, { allow, scope }, (_args, artifacts) =>
    body(artifacts as ToolArtifacts<"put" | "get" | "list" | "listVersions" | "delete" | "attach">),
  );
  return new CallbackTool(name, ({ args, toolContext }) => execute(args, toolContext));
}

const withPlugin = (tools: CallbackTool[]) => ({
  artifactService: fs.adk,
  tools,
  plugins: [new ArtifactScopePlugin()],
});

function effectsOn(events: readonly Event[]) {
  return events.flatMap((event) => {
    const effects = event.customMetadata?.[ARTIFACT_EFFECTS_KEY] as unknown[] | undefined;
    const ids = event.content?.parts?.flatMap((part) => part.functionResponse?.id ?? []) ?? [];
    return effects ? [{ ids, effects }] : [];
  });
}

describe("withArtifactAuthority", () => {
  it("grants the declared operations in the invocation's exact session, and no others", async () => {
    await fs.adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "a" } });
    const reader = withArtifactAuthority(
      fs.service,
      { allow: ["get"] as const },
      async (_args: unknown, artifacts) => {
        const read = new TextDecoder().decode((await artifacts.get("a.txt")).data);
        // @ts-expect-error delete was not declared, so the capability's type has no delete
        const denied = await codeOf(artifacts.delete("a.txt", "all"));
        return { read, denied, scope: artifacts.scope };
      },
    );
    const tool = new CallbackTool("read", ({ args, toolContext }) => reader(args, toolContext));
    const turn = await runTurn(withPlugin([tool]), [{ call: "read", args: {} }, { answer: "ok" }]);
    expect(toolResponses(turn.events)).toEqual([
      {
        read: "a",
        denied: "capability_denied",
        scope: { kind: "session", app: APP, user: "ada", session: "s1" },
      },
    ]);
  });

  it("revokes the capability when the call returns", async () => {
    let kept: ToolArtifacts<"put"> | undefined;
    const tool = declaredTool("keep", ["put"], async (artifacts) => {
      kept = artifacts;
      return { ok: true };
    });
    await runTurn(withPlugin([tool]), [{ call: "keep", args: {} }, { answer: "ok" }]);
    expect(kept?.allows("put")).toBe(false);
    expect(await codeOf(kept?.put("late.txt", bytes("late")) ?? Promise.resolve())).toBe(
      "capability_denied",
    );
    expect(await fs.adk.listArtifactKeys(KEY)).toEqual([]);
  });

  it("binds the body to its invocation: the bridge refuses another session even when reached directly", async () => {
    const tool = declaredTool("reach", [], async () =>
      codeOf(fs.adk.loadArtifact({ ...KEY, sessionId: "other", filename: "a.txt" })),
    );
    const turn = await runTurn(withPlugin([tool]), [{ call: "reach", args: {} }, { answer: "ok" }]);
    expect(toolResponses(turn.events)).toEqual([{ result: "capability_denied" }]);
  });

  it("denies every call when the runner has no ArtifactScopePlugin", async () => {
    const tool = declaredTool("unbound", ["get"], async () => "ran");
    const turn = await runTurn({ artifactService: fs.adk, tools: [tool] }, [
      { call: "unbound", args: {} },
      { answer: "ok" },
    ]);
    expect(toolResponses(turn.events)).toEqual([
      { error: expect.stringContaining("add ArtifactScopePlugin to the Runner") },
    ]);
  });

  it("rejects an unknown operation or scope when the tool is declared", () => {
    expect(() => withArtifactAuthority(fs.service, { allow: ["drop" as never] }, () => 0)).toThrow(
      /grant.allow/,
    );
    expect(() =>
      withArtifactAuthority(fs.service, { allow: [], scope: "app" as never }, () => 0),
    ).toThrow(/grant.scope/);
  });
});

describe("effects on the tool's event", () => {
  it("records each successful mutation with the call's id, metadata only, in the persisted session", async () => {
    const declared = declaredTool("write", ["put", "delete"], async (artifacts) => {
      await artifacts.put("draft.txt", bytes("draft one"), { mimeType: "text/plain" });
      await artifacts.put("draft.txt", bytes("draft two"), { mimeType: "text/plain" });
      await artifacts.delete("draft.txt", 1);
      return { ok: true };
    });
    const adkTool = new CallbackTool("save", async ({ toolContext }) => {
      await toolContext.saveArtifact("user:card.json", {
        inlineData: { data: Buffer.from("{}").toString("base64"), mimeType: "application/json" },
      });
      await toolContext.invocationContext.artifactService?.deleteArtifact("draft.txt");
      return { ok: true };
    });
    const turn = await runTurn(withPlugin([declared, adkTool]), [
      { call: "write", args: {} },
      { call: "save", args: {} },
      { answer: "ok" },
    ]);
    const session = await turn.sessionService.getSession({
      appName: APP,
      userId: "ada",
      sessionId: "s1",
    });
    const recorded = effectsOn(session?.events ?? []);
    const [write, save] = recorded;
    const put = (version: number, text: string) => ({
      operation: "put",
      name: "draft.txt",
      version,
      size: bytes(text).byteLength,
      sha256: sha256Hex(text),
      mimeType: "text/plain",
    });
    expect(recorded).toHaveLength(2);
    expect(write?.effects).toEqual(
      [
        put(0, "draft one"),
        put(1, "draft two"),
        { ...put(0, "draft one"), operation: "delete" },
      ].map((effect) => ({ functionCallId: write?.ids[0], ...effect })),
    );
    expect(save?.effects).toEqual(
      [
        {
          operation: "put",
          name: "user:card.json",
          version: 0,
          size: 2,
          sha256: sha256Hex("{}"),
          mimeType: "application/json",
        },
        { ...put(1, "draft two"), operation: "delete" },
      ].map((effect) => ({ functionCallId: save?.ids[0], ...effect })),
    );
    expect(write?.ids[0]).toMatch(/^adk-/);
    expect(save?.ids[0]).not.toBe(write?.ids[0]);
    const persisted = JSON.stringify(session?.events);
    expect(persisted).not.toContain("draft one");
    expect(persisted).not.toContain(Buffer.from("draft one").toString("base64"));
  });

  it("records nothing for a tool that only reads", async () => {
    await fs.adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "a" } });
    const tool = new CallbackTool("read", async ({ toolContext }) => ({
      part: await toolContext.loadArtifact("a.txt"),
    }));
    const turn = await runTurn(withPlugin([tool]), [{ call: "read", args: {} }, { answer: "ok" }]);
    expect(effectsOn(turn.events)).toEqual([]);
  });
});
