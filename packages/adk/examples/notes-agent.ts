import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import {
  ArtifactScopePlugin,
  toAdkArtifactService,
  VerifiedLoadArtifactsTool,
  withArtifactAuthority,
} from "@artifact-kit/adk";
import { FsArtifactService } from "@artifact-kit/fs";
import { FunctionTool, InMemorySessionService, LlmAgent, Runner } from "@google/adk";

// The artifacts live in one directory that every process of the app opens.
const artifactsDir = resolve(process.env.ARTIFACTS_DIR ?? ".artifacts");
await mkdir(artifactsDir, { recursive: true });
export const artifacts = await FsArtifactService.open({ root: artifactsDir });

// A tool declares what it does with artifacts: this one lists its session's names, no more.
const listNotes = new FunctionTool({
  name: "list_notes",
  description: "Lists the names of the notes in this session.",
  execute: withArtifactAuthority(artifacts, { allow: ["list"] }, async (_input, notes) => {
    return (await notes.list()).items;
  }),
});

export const agent = new LlmAgent({
  name: "notes_agent",
  model: "gemini-2.5-flash",
  instruction: "Help the user with their notes. The current draft: {artifact.draft.md?}",
  // The model reads notes with load_artifacts: bounded, verified, for one request at a time.
  tools: [listNotes, new VerifiedLoadArtifactsTool(artifacts)],
});

export const sessionService = new InMemorySessionService();

export const runner = new Runner({
  appName: "notes_app",
  agent,
  sessionService,
  artifactService: toAdkArtifactService(artifacts),
  // First among the plugins: binds each invocation and tool call to its own session.
  plugins: [new ArtifactScopePlugin()],
});
