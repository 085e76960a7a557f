import { type Scope, sha256Hex } from "@artifact-kit/core";
import { describeFaults, type FaultContext } from "@artifact-kit/fault-trials";
import type { SeenRequest } from "@artifact-kit/test-proxy";
import { expect, it } from "vitest";
import { AzureArtifactService } from "../src/index.js";
import { SERVER_BUSY } from "./support/fault-proxy.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const KiB = 1024;

// Requests by what they do in the protocol's layout (see object-store's ObjectLayout).
const blockList = (r: SeenRequest) =>
  r.method === "PUT" && r.url.includes("/n/") && r.url.includes("comp=blocklist");
const deletionMarker = (r: SeenRequest) => r.method === "PUT" && r.url.includes("/d/");

describeFaults(
  {
    serverEndpoint: blobOrigin,
    unavailable: SERVER_BUSY,
    async openStore() {
      const { containerName } = await freshContainer();
      return (via) =>
        new AzureArtifactService({
          container: containerClient(containerName, via),
          blockBytes: 128 * KiB,
        });
    },
    requests: {
      allocation: (r) => r.method === "PUT" && r.url.includes("/a/"),
      publish: (r) => r.method === "PUT" && r.url.includes("/n/") && !r.url.includes("comp="),
      listing: (r) => r.method === "GET" && r.url.includes("comp=list"),
      deletion: deletionMarker,
    },
    // The marker records its delete's request id: a retried marker knows itself.
    lostDeletionReply: "deleted",
  },
  (context: FaultContext) => {
    const versions = async (name: string) =>
      (await context.observer.listVersions(scope, name)).items.map((meta) => meta.version);

    it("a lost Put Block List reply of a streamed upload publishes one version, whole", async () => {
      const { proxy, service, observer } = context;
      proxy.inject(blockList, "drop-response");
      const upload = await service.openUpload(scope, "big");
      const data = new Uint8Array(300 * KiB + 17).map((_, i) => i % 251);
      await upload.write(data);
      const meta = await upload.finish();
      expect(proxy.seen.filter(blockList).length).toBeGreaterThanOrEqual(2); // lost, retry
      expect(await versions("big")).toEqual([meta.version]);
      expect((await observer.get(scope, "big")).sha256).toBe(sha256Hex(data));
    });

    it("a numbered delete whose marker reply was lost succeeds, rather than not_found", async () => {
      const { proxy, service } = context;
      for (const text of ["1", "2"]) {
        await service.put(scope, "n", new TextEncoder().encode(text));
      }
      proxy.inject(deletionMarker, "drop-response");
      await service.delete(scope, "n", 1);
      expect(proxy.seen.filter(deletionMarker).length).toBeGreaterThanOrEqual(2); // lost, retry
      expect(await versions("n")).toEqual([2]);
    });
  },
);
