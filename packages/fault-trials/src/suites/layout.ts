import { readFile } from "node:fs/promises";
import type { ArtifactService, ArtifactTransfer, Scope } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import {
  type BucketDump,
  type DumpedObject,
  normaliseDump,
  observeLayout,
  writeLayoutScenario,
} from "../layout.js";

/** A bucket written by an earlier release, and what that release read back from it. */
interface LayoutFixture {
  readonly writtenBy: string;
  readonly dump: BucketDump;
  readonly observed: unknown;
}

/**
 * The scope markers (`c/<sha256 of scope>`, written for listScopes) that a later version
 * added to the same scenario's bucket, and what that version's listScopes answered.
 */
interface ScopeMarkersFixture {
  readonly writtenBy: string;
  readonly markers: readonly DumpedObject[];
  readonly listed: { readonly apps: Scope[]; readonly usersOfLayout: Scope[] };
}

/**
 * The deletion seals (`s/<scope>/e/<name key>/<version>`, one per deleted version, holding the
 * request id of the delete that removed it) that a later version of the markers dialect added
 * to the same scenario's bucket.
 */
interface DeletionSealsFixture {
  readonly writtenBy: string;
  readonly seals: readonly DumpedObject[];
}

/** What the layout suite needs of an adapter: services on prefixes, and raw bucket access. */
export interface LayoutBackend {
  /** A JSON fixture made by running `writeLayoutScenario` with the earlier release. */
  fixture: string;
  /**
   * A JSON fixture of the scope markers the first version with listScopes added to that
   * scenario's bucket (the earlier release predates them): written now, they are the same.
   */
  scopeMarkersFixture: string;
  /**
   * A JSON fixture of the deletion seals the first version with them added to that scenario's
   * bucket, for an adapter that writes them (the markers dialect): written now, the same.
   */
  deletionSealsFixture?: string;
  /** A new, empty bucket for one test; what the other members work on. */
  newBucket(): Promise<unknown>;
  open(bucket: unknown, prefix: string): ArtifactService & ArtifactTransfer;
  /** Every object under `prefix` (ending in "/"), read with the raw SDK. */
  dump(bucket: unknown, prefix: string): Promise<BucketDump>;
  /** Writes `dump`'s objects under `prefix` as they were, with the raw SDK. */
  restore(bucket: unknown, prefix: string, dump: BucketDump): Promise<void>;
}

/**
 * Existing buckets keep working: a bucket written by the earlier release reads the same
 * through this one, and this one writes the same objects, byte for byte (request ids and
 * creation times aside).
 */
export function describeLayoutCompatibility(backend: LayoutBackend): void {
  const fixture = async () => JSON.parse(await readFile(backend.fixture, "utf8")) as LayoutFixture;
  const scopeMarkers = async () =>
    JSON.parse(await readFile(backend.scopeMarkersFixture, "utf8")) as ScopeMarkersFixture;
  const deletionSeals = async (): Promise<readonly DumpedObject[]> =>
    backend.deletionSealsFixture === undefined
      ? []
      : (JSON.parse(await readFile(backend.deletionSealsFixture, "utf8")) as DeletionSealsFixture)
          .seals;

  describe("the on-bucket layout of the earlier release", () => {
    it("a bucket it wrote reads the same, keyed retries and deletions included", async () => {
      const { dump, observed } = await fixture();
      const bucket = await backend.newBucket();
      await backend.restore(bucket, "old/", dump);
      const service = backend.open(bucket, "old");
      expect(JSON.parse(JSON.stringify(await observeLayout(service)))).toEqual(observed);
      await service.close();
    });

    it("the objects written now are the ones it wrote, the scope markers and any deletion seals, byte for byte", async () => {
      const { dump } = await fixture();
      const { markers } = await scopeMarkers();
      const seals = await deletionSeals();
      const bucket = await backend.newBucket();
      const service = backend.open(bucket, "new");
      await writeLayoutScenario(service);
      await service.close();
      const written = await backend.dump(bucket, "new/");
      const expected = { objects: [...dump.objects, ...markers, ...seals] };
      expect(normaliseDump(written)).toEqual(normaliseDump(expected));
    });

    it("a bucket with the scope markers of the first version with listScopes lists the same", async () => {
      const { dump, observed } = await fixture();
      const { markers, listed } = await scopeMarkers();
      const bucket = await backend.newBucket();
      await backend.restore(bucket, "marked/", { objects: [...dump.objects, ...markers] });
      const service = backend.open(bucket, "marked");
      expect((await service.listScopes({ kind: "app" })).items).toEqual(listed.apps);
      const users = await service.listScopes({ kind: "user", app: "layout" });
      expect(users.items).toEqual(listed.usersOfLayout);
      expect(JSON.parse(JSON.stringify(await observeLayout(service)))).toEqual(observed);
      await service.close();
    });

    it("a bucket with the deletion seals too reads the same", async () => {
      const { dump, observed } = await fixture();
      const { markers } = await scopeMarkers();
      const seals = await deletionSeals();
      const bucket = await backend.newBucket();
      await backend.restore(bucket, "sealed/", {
        objects: [...dump.objects, ...markers, ...seals],
      });
      const service = backend.open(bucket, "sealed");
      expect(JSON.parse(JSON.stringify(await observeLayout(service)))).toEqual(observed);
      await service.close();
    });
  });
}
