import type { Scope } from "@artifact-kit/core";
import { describeFaults, type FaultContext } from "@artifact-kit/fault-trials";
import type { SeenRequest } from "@artifact-kit/test-proxy";
import { expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { UNAVAILABLE } from "./support/fault-proxy.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);

// Requests by what they do in the protocol's layout (see object-store's ObjectLayout).
const publish = (r: SeenRequest) => r.url.startsWith("/upload/") && r.url.includes("/n/");
const listing = (r: SeenRequest) => r.method === "GET" && /\/o\?/.test(r.url);

describeFaults(
  {
    serverEndpoint: endpoint,
    // fake-gcs-server builds upload URLs from the Host header.
    proxyOptions: { rewriteHost: true },
    unavailable: UNAVAILABLE,
    async openStore() {
      const bucket = await freshBucket();
      return (via) =>
        new GcsArtifactService({ bucket: via ? newStorage(via).bucket(bucket.name) : bucket });
    },
    requests: {
      allocation: (r) => r.url.startsWith("/upload/") && r.url.includes("/a/"),
      publish,
      listing,
      deletion: (r) => r.method === "DELETE" && r.url.includes("/n/"),
    },
    // The version's DELETE is sent once: a lost reply is the ambiguous unavailable.
    lostDeletionReply: "deleted or unavailable",
    // Every streamed upload is a resumable one to a staging object; the version is that
    // object's create-only copy to its name.
    streamedUpload: {
      bytes: 1024 * 1024 + 17,
      completion: (r) => r.method === "POST" && /\/(copyTo|rewriteTo)\/.*\/n\//.test(r.url),
    },
  },
  (context: FaultContext) => {
    // Found by the seeded fault trials: the client library turned retries off on the Storage
    // object around the upload's clean-up (overlapping unconditional deletes) and never back
    // on, so every later 503 or lost reply failed its operation.
    it("a 503 is still retried after a streamed upload, and after a keyed delete", async () => {
      const { proxy, service } = context;
      const upload = await service.openUpload(scope, "streamed");
      await upload.write(bytes("streamed"));
      await upload.finish();
      proxy.inject(publish, UNAVAILABLE);
      expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
      await service.put(scope, "k", bytes("keyed"), { idempotencyKey: "op-1" });
      await service.delete(scope, "k", 1);
      proxy.inject(listing, UNAVAILABLE);
      expect((await service.put(scope, "n", bytes("y"))).version).toBe(2);
    });
  },
);
