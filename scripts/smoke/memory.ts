import type { Scope } from "@artifact-kit/core";
import { MemoryArtifactService } from "@artifact-kit/memory";

const service = new MemoryArtifactService();
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"), {
  mimeType: "text/plain",
});
const artifact = await service.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await service.close();
console.log(`memory: put v${meta.version} and read it back`);
