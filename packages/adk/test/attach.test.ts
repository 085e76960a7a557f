import { InMemorySessionService } from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ArtifactScopePlugin,
  DEFAULT_ATTACHMENT_BOUNDS,
  VerifiedLoadArtifactsTool,
} from "../src/index.js";
import { CallbackTool } from "./support/artifact-tools.js";
import { codeOf } from "./support/codes.js";
import { lying } from "./support/lying.js";
import type { SeenRequest } from "./support/scripted-model.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";
import { APP, runTurn, toolResponses } from "./support/turn.js";

// The attachment tool through a real Runner: metadata-only replies, the exact version's
// verified bytes in the next model request only, bounds, and a session that keeps no bytes.

const KEY = { appName: APP, userId: "ada", sessionId: "s1" };
const NOTES = "meeting notes: ship on friday";
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);
const PNG_BASE64 = PNG.toString("base64");

let fs: BridgedFs;
beforeEach(async () => {
  fs = await bridgedFs();
  await fs.adk.saveArtifact({ ...KEY, filename: "notes.txt", artifact: { text: "old notes" } });
  await fs.adk.saveArtifact({ ...KEY, filename: "notes.txt", artifact: { text: NOTES } });
  await fs.adk.saveArtifact({
    ...KEY,
    filename: "user:photo.png",
    artifact: { inlineData: { data: PNG_BASE64, mimeType: "image/png" } },
  });
});
afterEach(() => fs.service.close());

const setup = (tool: VerifiedLoadArtifactsTool, sessionService = new InMemorySessionService()) => ({
  artifactService: fs.adk,
  tools: [tool, new CallbackTool("noop", async () => ({ ok: true }))],
  plugins: [new ArtifactScopePlugin()],
  sessionService,
});

const seen = (request: SeenRequest | undefined) => JSON.stringify(request?.contents ?? []);

describe("VerifiedLoadArtifactsTool", () => {
  it("replies with metadata, attaches the exact versions to the next request only, and the session keeps no bytes", async () => {
    const tool = new VerifiedLoadArtifactsTool(fs.service);
    const first = await runTurn(setup(tool), [
      {
        call: "load_artifacts",
        args: { artifact_names: ["notes.txt", "photo.png", "nowhere.txt"] },
      },
      { answer: "read them" },
    ]);
    const [reply] = toolResponses(first.events) as Array<Record<string, unknown>>;
    expect(reply?.attached).toEqual([
      {
        name: "notes.txt",
        version: 1,
        mimeType: "text/plain",
        size: NOTES.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        name: "user:photo.png",
        version: 0,
        mimeType: "image/png",
        size: PNG.byteLength,
        sha256: expect.any(String),
      },
    ]);
    expect(reply?.missing).toEqual(["nowhere.txt"]);

    const [beforeCall, afterCall, nextRound] = first.model.requests;
    expect(seen(beforeCall)).not.toContain(NOTES);
    expect(afterCall?.contents.slice(-2)).toEqual([
      { role: "user", parts: [{ text: "Artifact notes.txt (version 1) is:" }, { text: NOTES }] },
      {
        role: "user",
        parts: [
          { text: "Artifact user:photo.png (version 0) is:" },
          { inlineData: { data: PNG_BASE64, mimeType: "image/png" } },
        ],
      },
    ]);
    expect(afterCall?.config?.systemInstruction).toContain(
      JSON.stringify(["notes.txt", "user:photo.png"]),
    );

    // A later model round, in this turn or the next, sees none of it unless it asks again.
    expect(seen(nextRound)).not.toContain(NOTES);
    expect(seen(nextRound)).not.toContain(PNG_BASE64);
    const later = await first.again([{ answer: "from memory" }], "what did the notes say?");
    expect(seen(later.model.requests[0])).not.toContain(NOTES);
    expect(seen(later.model.requests[0])).not.toContain(PNG_BASE64);

    const session = await first.sessionService.getSession(KEY);
    const persisted = JSON.stringify({ events: session?.events, state: session?.state });
    expect(session?.events.length).toBeGreaterThanOrEqual(5);
    for (const content of [NOTES, PNG_BASE64, Buffer.from(NOTES).toString("base64")]) {
      expect(persisted).not.toContain(content);
    }
  });

  it("fails the call past a bound by default, attaching nothing", async () => {
    const tool = new VerifiedLoadArtifactsTool(fs.service, { maxArtifactBytes: 4 });
    const turn = await runTurn(setup(tool), [
      { call: "load_artifacts", args: { artifact_names: ["photo.png"] } },
      { answer: "no" },
    ]);
    expect(toolResponses(turn.events)).toEqual([
      { error: expect.stringContaining("max_attachment_bytes") },
    ]);
    expect(seen(turn.model.requests[1])).not.toContain(PNG_BASE64);
  });

  it("under overflow skip, attaches what fits and reports the rest with the bound it passed", async () => {
    const tool = new VerifiedLoadArtifactsTool(fs.service, {
      maxTotalBytes: NOTES.length + 1,
      overflow: "skip",
    });
    const turn = await runTurn(setup(tool), [
      { call: "load_artifacts", args: { artifact_names: ["notes.txt", "photo.png"] } },
      { answer: "ok" },
    ]);
    const [reply] = toolResponses(turn.events) as Array<{
      attached: unknown[];
      skipped: unknown[];
    }>;
    expect(reply?.attached).toHaveLength(1);
    expect(reply?.skipped).toEqual([
      expect.objectContaining({ name: "user:photo.png", limit: "max_attachment_total_bytes" }),
    ]);
    expect(seen(turn.model.requests[1])).toContain(NOTES);
    expect(seen(turn.model.requests[1])).not.toContain(PNG_BASE64);
  });

  it("allows at most 8 artifacts per call by default", async () => {
    const names = Array.from({ length: 9 }, (_, i) => `n${i}.txt`);
    for (const name of names)
      await fs.adk.saveArtifact({ ...KEY, filename: name, artifact: { text: name } });
    const turn = await runTurn(setup(new VerifiedLoadArtifactsTool(fs.service)), [
      { call: "load_artifacts", args: { artifact_names: names } },
      { answer: "no" },
    ]);
    expect(toolResponses(turn.events)).toEqual([
      { error: expect.stringContaining("max_attachments") },
    ]);
  });

  it("refuses the bytes when the store answers with another version than the one resolved", async () => {
    const forged = lying(fs.service, {
      get: async () =>
        fs.service.get({ kind: "session", app: APP, user: "ada", session: "s1" }, "notes.txt", {
          version: 1,
        }),
    });
    const tool = new VerifiedLoadArtifactsTool(forged);
    const run = runTurn(setup(tool), [
      { call: "load_artifacts", args: { artifact_names: ["notes.txt"] } },
      { answer: "never" },
    ]);
    await expect(run).rejects.toThrow(/another version/);
  });

  it("has the design's defaults and refuses bad bounds", async () => {
    expect(DEFAULT_ATTACHMENT_BOUNDS).toEqual({
      maxArtifacts: 8,
      maxTotalBytes: 10 * 1024 * 1024,
      maxArtifactBytes: 4 * 1024 * 1024,
      overflow: "error",
    });
    for (const bad of [
      { maxArtifacts: 0 },
      { maxTotalBytes: 1.5 },
      { overflow: "truncate" },
      { maxBytes: 1 },
    ]) {
      expect(
        await codeOf(
          Promise.resolve().then(() => new VerifiedLoadArtifactsTool(fs.service, bad as never)),
        ),
      ).toBe("invalid_argument");
    }
  });
});
