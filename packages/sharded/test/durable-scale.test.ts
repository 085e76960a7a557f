import { expect, it } from "vitest";
import { expectOwnData, fillScopes, manyScopes } from "../src/conformance/index.js";
import { createArtifactRuntime } from "../src/index.js";
import { tempRoot } from "./temp.js";

// The router kit's scale laws over fs workers on disk (the kit's own workers are in memory):
// through reclamation and a restart, every scope finds its own shard again.
it("durable_local: 120 scopes on disk through 40 workers, routed to the same shard after a restart", async () => {
  const root = await tempRoot();
  const scopes = manyScopes(120);
  const open = () => createArtifactRuntime("durable_local", { root, maxActiveScopes: 40 });
  const first = await open();
  await fillScopes(first, scopes);
  expect(first.status().evictions).toBeGreaterThan(0);
  await first.close();
  const restarted = await open();
  await expectOwnData(restarted, scopes, "durable_local after a restart");
  await restarted.close();
}, 300_000);
