// One OS process of the cross-process race: `node put-worker.mjs <endpoint> <bucket> <name> <count>`
// puts <count> artifacts concurrently and prints their versions as JSON.
import { Storage } from "@google-cloud/storage";
import { GcsArtifactService } from "../../dist/index.js";

const [endpoint, bucketName, name, count] = process.argv.slice(2);
const storage = new Storage({ apiEndpoint: endpoint, projectId: "artifact-kit-test" });
const service = new GcsArtifactService({ bucket: storage.bucket(bucketName), maxPutAttempts: 32 });
const scope = { kind: "app", app: "race" };
const puts = Array.from({ length: Number(count) }, (_, i) =>
  service.put(scope, name, new TextEncoder().encode(`${process.pid}:${i}`)),
);
const metas = await Promise.all(puts);
process.stdout.write(JSON.stringify(metas.map((meta) => meta.version)));
