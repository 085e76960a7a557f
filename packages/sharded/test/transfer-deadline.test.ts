import type { DownloadSource, UploadSink } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, ScriptedShards } from "./fixtures.js";

// A transfer's own deadline frees its worker even if nobody calls it again (the router kit,
// src/conformance, has the other ways a transfer ends). Deadlines run on real time here: the
// test waits a few multiples of a short deadline, to show that the router lets go by itself.
const DEADLINE_MS = 25;
const pastDeadline = () => new Promise((resolve) => setTimeout(resolve, DEADLINE_MS * 3));

describe("a transfer left untouched past its deadline", () => {
  const abandoned: [string, (service: ShardedArtifactService) => Promise<unknown>][] = [
    [
      "an upload",
      async (service) => {
        const sink = await service.openUpload(appScope("a"), "x", { timeoutMs: DEADLINE_MS });
        await sink.write(bytes("left behind"));
        return sink;
      },
    ],
    [
      "a download",
      async (service) => {
        await service.put(appScope("a"), "y", bytes("abc"));
        return service.openDownload(appScope("a"), "y", { timeoutMs: DEADLINE_MS });
      },
    ],
  ];
  for (const [what, open] of abandoned) {
    it(`lets the worker go when ${what} left untouched passes its deadline`, async () => {
      const shards = new ScriptedShards("durable", "native");
      const service = new ShardedArtifactService(shards, { maxActiveScopes: 1 });
      const transfer = await open(service);
      await pastDeadline();
      await expect(service.put(appScope("b"), "x", bytes("b"))).resolves.toMatchObject({
        version: 1,
      });
      expect(shards.workers[0]?.closed).toBe(true);
      const later =
        "finish" in (transfer as object)
          ? (transfer as UploadSink).finish()
          : (transfer as DownloadSource).read();
      await expect(later).rejects.toMatchObject({ code: "timeout" });
      await expect(service.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
      await service.close();
    });
  }
});
