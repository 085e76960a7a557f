import type { Scope } from "@artifact-kit/core";
import { GcsArtifactService } from "@artifact-kit/gcs";
import { Storage } from "@google-cloud/storage";

// The endpoint of the emulator .ci/run started; passed to the client, not through
// STORAGE_EMULATOR_HOST, which @google-cloud/storage 7 would misread as its base URL.
const apiEndpoint = process.env.ARTIFACT_KIT_GCS_ENDPOINT;
if (!apiEndpoint)
  throw new Error("ARTIFACT_KIT_GCS_ENDPOINT is not set: start fake-gcs-server first");
const storage = new Storage({ apiEndpoint, projectId: "smoke" });
const bucketName = `smoke-${process.pid}-${Date.now()}`;
await storage.createBucket(bucketName);
const service = new GcsArtifactService({ bucket: storage.bucket(bucketName) });
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
const artifact = await service.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await service.close();
console.log(`gcs: put v${meta.version} through @google-cloud/storage and read it back`);
