import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";

const root = await realpath(await mkdtemp(join(tmpdir(), "smoke-fs-")));
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const first = await FsArtifactService.open({ root });
const meta = await first.put(scope, "hello.txt", new TextEncoder().encode("hello"), {
  mimeType: "text/plain",
});
await first.close();
// A new instance on the same root (a restart) reads it back, verified.
const second = await FsArtifactService.open({ root });
const artifact = await second.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
const report = await second.repair({ minAgeMs: 0 });
if (report.corrupt !== 0 || report.removed !== 0) throw new Error("unexpected repair work");
await second.close();
await rm(root, { recursive: true, force: true });
console.log(`fs: put v${meta.version}, reopened the root and read it back`);
