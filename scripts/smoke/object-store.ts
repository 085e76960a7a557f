import type { Scope } from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import {
  type ListRequest,
  type NewObject,
  type ObjectBucket,
  ObjectStoreBackend,
  objectStoreCapabilities,
} from "@artifact-kit/object-store";

// The smallest bucket a put and a get need: objects in a Map, listed in key order.
const objects = new Map<string, Uint8Array>();
const bucket: ObjectBucket = {
  label: "map",
  maxListKeys: 1_000,
  requestIds: "body",
  tellsDeletes: true,
  async createOnly(_deadline, object: NewObject) {
    if (objects.has(object.key)) return "exists";
    objects.set(object.key, object.body.slice());
    return "created";
  },
  async get(_deadline, key) {
    const bytes = objects.get(key);
    return bytes && { bytes, objectSize: bytes.byteLength };
  },
  async head(_deadline, key) {
    const bytes = objects.get(key);
    return bytes && { key, size: bytes.byteLength, lastModified: 0 };
  },
  async list(_deadline, { prefix, startAfter = "", endBefore, maxKeys }: ListRequest) {
    const keys = [...objects.keys()]
      .filter((key) => key.startsWith(prefix) && key > startAfter)
      .filter((key) => endBefore === undefined || key < endBefore)
      .sort()
      .slice(0, maxKeys);
    return { objects: keys.map((key) => ({ key, size: 0, lastModified: 0 })), prefixes: [] };
  },
  async delete(_deadline, { key }) {
    return objects.delete(key);
  },
  async removeQuietly(key) {
    objects.delete(key);
  },
  readRange: () => {
    throw new Error("not used here");
  },
  openStaging: () => {
    throw new Error("not used here");
  },
};

const bounds = {
  maxArtifactBytes: 1024,
  maxPageLimit: 100,
  legacyListLimit: 100,
  maxConcurrency: 4,
  maxContentionWaitMs: 1_000,
};
const dialect = {
  format: { kind: "trailer", name: "smoke/map@1" },
  bindings: "name-and-key",
  deletions: "markers",
} as const;
const backend = new ObjectStoreBackend({ ...bounds, bucket, prefix: "", dialect });
const service = new (class extends AdapterService {})(backend, objectStoreCapabilities(bounds));
const scope: Scope = { kind: "app", app: "smoke" };
const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
const artifact = await service.get(scope, "hello.txt");
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await service.close();
console.log(`object-store: put v${meta.version} through a Map bucket and read it back`);
