import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { createArtifactRuntime } from "@artifact-kit/sharded";

const root = await mkdtemp(join(tmpdir(), "smoke-sharded-"));
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const first = await createArtifactRuntime("durable_local", { root });
const meta = await first.put(scope, "hello.txt", new TextEncoder().encode("hello"));
await first.close();
// A restarted router finds the scope's data in the same sub-root.
const second = await createArtifactRuntime("durable_local", { root });
const artifact = await second.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await second.close();
await rm(root, { recursive: true, force: true });
console.log(`sharded: put v${meta.version}, restarted the router and read it back`);
