import type { DownloadSource, UploadSink } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { ShardedArtifactService } from "../src/index.js";
import { appScope, bytes, ScriptedShards } from "./fixtures.js";

// A transfer's own deadline frees its worker even if nobody calls it again (the router kit,
// src/conformance, has the other ways a transfer ends). The deadline is the caller's signal,
// fired by the test with the TimeoutError that AbortSignal.timeout() fires with (the router
// watches one signal for both), so that opening and feeding the transfer can never race it
// on a slow machine. The router lets go on the abort event itself, within a few turns of the
// event loop (no I/O: the workers are in memory), not on a later call.
const timedOut = () => new DOMException("the caller's deadline passed", "TimeoutError");
const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise(setImmediate);
};

describe("a transfer left untouched past its deadline", () => {
  const abandoned: [
    string,
    (service: ShardedArtifactService, signal: AbortSignal) => Promise<unknown>,
  ][] = [
    [
      "an upload",
      async (service, signal) => {
        const sink = await service.openUpload(appScope("a"), "x", { signal });
        await sink.write(bytes("left behind"));
        return sink;
      },
    ],
    [
      "a download",
      async (service, signal) => {
        await service.put(appScope("a"), "y", bytes("abc"));
        return service.openDownload(appScope("a"), "y", { signal });
      },
    ],
  ];
  for (const [what, open] of abandoned) {
    it(`lets the worker go when ${what} left untouched passes its deadline`, async () => {
      const shards = new ScriptedShards("durable", "native");
      const service = new ShardedArtifactService(shards, { maxActiveScopes: 1 });
      const deadline = new AbortController();
      const transfer = await open(service, deadline.signal);
      expect(shards.workers[0]?.closed).toBe(false);
      deadline.abort(timedOut());
      await turns(10);
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
