import {
  ArtifactScopePlugin,
  runInInvocationScope,
  toAdkArtifactService,
  VerifiedLoadArtifactsTool,
  withArtifactAuthority,
} from "@artifact-kit/adk";
import { MemoryArtifactService } from "@artifact-kit/memory";
import {
  type BaseArtifactService,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
} from "@google/adk";

const service = new MemoryArtifactService();
// Type-checked against the ADK installed here, as ADK's interface and as a Runner's service.
const artifactService: BaseArtifactService = toAdkArtifactService(service);
// A declared tool's capability has the granted methods only, with every TypeScript we claim.
const reader = new FunctionTool({
  name: "read_note",
  description: "Reads a note.",
  execute: withArtifactAuthority(service, { allow: ["get"] }, async (_input, notes) => {
    // @ts-expect-error delete was not declared
    void notes.delete;
    return (await notes.get("hello.txt")).size;
  }),
});
const agent = new LlmAgent({
  name: "smoke_agent",
  model: "gemini-2.5-flash",
  tools: [reader, new VerifiedLoadArtifactsTool(service)],
});
new Runner({
  appName: "smoke",
  agent,
  sessionService: new InMemorySessionService(),
  artifactService,
  plugins: [new ArtifactScopePlugin()],
});

const key = { appName: "smoke", userId: "u", sessionId: "s" };
const hello = { ...key, filename: "hello.txt" };
const first = await artifactService.saveArtifact({ ...hello, artifact: { text: "hello" } });
await artifactService.saveArtifact({
  ...key,
  filename: "user:prefs.json",
  artifact: { inlineData: { data: btoa("{}"), mimeType: "application/json" } },
});
await artifactService.deleteArtifact(hello);
const again = await artifactService.saveArtifact({ ...hello, artifact: { text: "hello again" } });
const loaded = await artifactService.loadArtifact(hello);
if (loaded?.text !== "hello again") throw new Error("round trip failed");
if (again <= first) throw new Error(`version ${again} reused after delete`);
const keys = await artifactService.listArtifactKeys(key);
// Bound to one session (as a tool call is under the plugin), another session is refused.
const elsewhere = await runInInvocationScope(key, () =>
  artifactService.loadArtifact({ ...hello, sessionId: "other" }).then(
    () => "served",
    (error: { code?: string }) => error.code,
  ),
);
if (elsewhere !== "capability_denied") throw new Error(`another session was ${elsewhere}`);
if (keys.join() !== "hello.txt,user:prefs.json") throw new Error(`unexpected keys ${keys}`);
await service.close();
console.log(`adk: saved v${first}, deleted, saved v${again}; keys ${keys.join(", ")}`);
