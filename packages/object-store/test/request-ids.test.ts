import { Deadline, type Scope } from "@artifact-kit/core";
import { nameKey } from "@artifact-kit/core/adapter";
import { describe, expect, it } from "vitest";
import { ObjectLayout } from "../src/index.js";
import { DIALECTS, openService } from "./support/subjects.js";

const scope: Scope = { kind: "app", app: "ids" };
const bytes = (text: string) => new TextEncoder().encode(text);
const key = nameKey("n").key;

// A write whose reply was lost is sent again by the SDK and answered "exists", because its
// first attempt landed: the request id it recorded (in the body or in metadata, as the bucket
// says) is how the protocol knows the object for its own, and not another writer's.
describe.each(Object.entries(DIALECTS))(
  "retried writes, %s format",
  (_, { dialect, newBucket }) => {
    const layout = new ObjectLayout("p/", dialect.bindings);

    it("an allocation answered 'exists' after it landed is this put's version, not the next", async () => {
      const bucket = newBucket();
      const service = openService(bucket, dialect);
      bucket.landThenRefuse.add(layout.allocationObject(scope, key, 1));
      expect((await service.put(scope, "n", bytes("a"))).version).toBe(1);
      expect(bucket.objects.has(layout.allocationObject(scope, key, 2))).toBe(false);
      expect((await service.listVersions(scope, "n")).items.map((meta) => meta.version)).toEqual([
        1,
      ]);
    });

    it("a publication answered 'exists' after it landed is this put's success", async () => {
      const bucket = newBucket();
      const service = openService(bucket, dialect);
      bucket.landThenRefuse.add(layout.versionObject(scope, key, 1));
      const meta = await service.put(scope, "n", bytes("a"));
      expect(meta.version).toBe(1);
      expect(await service.head(scope, "n")).toEqual(meta);
    });

    it("a keyed binding answered 'exists' after it landed publishes once", async () => {
      const bucket = newBucket();
      const service = openService(bucket, dialect);
      bucket.landThenRefuse.add(layout.keyBinding(scope, "n", key, "op"));
      const first = await service.put(scope, "n", bytes("a"), { idempotencyKey: "op" });
      const again = await service.put(scope, "n", bytes("a"), { idempotencyKey: "op" });
      expect(again).toEqual(first);
      expect((await service.listVersions(scope, "n")).items).toEqual([first]);
    });

    it("another writer's object at the allocation is taken as theirs: the put goes above it", async () => {
      const bucket = newBucket();
      const service = openService(bucket, dialect);
      const other = openService(bucket, dialect);
      await other.put(scope, "n", bytes("theirs"));
      // This instance's cached high-water mark is stale: its first claim meets their allocation.
      expect((await service.put(scope, "n", bytes("ours"))).version).toBe(2);
      expect((await other.put(scope, "n", bytes("theirs again"))).version).toBe(3);
      expect((await service.put(scope, "n", bytes("ours again"))).version).toBe(4);
    });
  },
);

describe("deletion markers (trailer format)", () => {
  const { dialect, newBucket } = DIALECTS.trailer;
  const layout = new ObjectLayout("p/", dialect.bindings);

  // The marker, then the seal that decides: each answered "exists" to its own landed write.
  it.each([
    ["marker", (version: number) => layout.deletionMarker(scope, key, version)],
    ["seal", (version: number) => layout.deletionSeal(scope, key, version)],
  ])("a %s answered 'exists' after it landed deletes one version, not two", async (_, at) => {
    const bucket = newBucket();
    const service = openService(bucket, dialect);
    for (const text of ["1", "2", "3"]) await service.put(scope, "n", bytes(text));
    bucket.landThenRefuse.add(at(3));
    await service.delete(scope, "n", "latest");
    expect((await service.listVersions(scope, "n")).items.map((meta) => meta.version)).toEqual([
      1, 2,
    ]);
  });

  it("another delete's marker, its object left by a failed delete, is deleted and answered", async () => {
    const bucket = newBucket();
    const service = openService(bucket, dialect);
    for (const text of ["1", "2"]) await service.put(scope, "n", bytes(text));
    // What a delete leaves that died after its marker: the marker, and the version still there.
    const marker = { key: layout.deletionMarker(scope, key, 2), body: bytes("another delete") };
    await bucket.createOnly(Deadline.start({}), marker);
    await service.delete(scope, "n", "latest");
    expect((await service.listVersions(scope, "n")).items.map((meta) => meta.version)).toEqual([1]);
  });
});
