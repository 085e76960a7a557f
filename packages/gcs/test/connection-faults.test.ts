import { randomUUID } from "node:crypto";
import { describeConnectionFaults } from "@artifact-kit/fault-trials";
import { Storage } from "@google-cloud/storage";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, newStorage } from "./support/emulator.js";

// A reply cut in the middle is noticed by a read of bytes through the read's wait for more
// (readIdleMs, src/idle-read.ts), and by a JSON request (a listing, a write) only through the
// Storage client's own `timeout`, as the README asks of every caller: both short here, so
// that each such trial ends soon.
describeConnectionFaults({
  serverEndpoint: endpoint,
  async openStore() {
    // The client retries a create whose answer it missed (a busy emulator closing a kept-alive
    // connection): a 409 then is this bucket, made by the first attempt.
    const name = `ak-${randomUUID()}`;
    await newStorage()
      .createBucket(name)
      .catch((error: { code?: unknown }) => {
        if (error.code !== 409) throw error;
      });
    const bucket = newStorage().bucket(name);
    return (via) => {
      if (!via) return new GcsArtifactService({ bucket });
      const storage = new Storage({
        apiEndpoint: via,
        projectId: "artifact-kit-test",
        timeout: 4_000,
        retryOptions: {
          maxRetries: 3,
          maxRetryDelay: 1,
          retryDelayMultiplier: 1,
          totalTimeout: 20,
        },
      });
      return new GcsArtifactService({ bucket: storage.bucket(bucket.name), readIdleMs: 3_000 });
    };
  },
});
