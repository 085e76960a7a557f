import { readFile } from "node:fs/promises";
import type { ArtifactService, ArtifactTransfer } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { type BucketDump, normaliseDump, observeLayout, writeLayoutScenario } from "../layout.js";

/** A bucket written by an earlier release, and what that release read back from it. */
interface LayoutFixture {
  readonly writtenBy: string;
  readonly dump: BucketDump;
  readonly observed: unknown;
}

/** What the layout suite needs of an adapter: services on prefixes, and raw bucket access. */
export interface LayoutBackend {
  /** A JSON fixture made by running `writeLayoutScenario` with the earlier release. */
  fixture: string;
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

  describe("the on-bucket layout of the earlier release", () => {
    it("a bucket it wrote reads the same, keyed retries and deletions included", async () => {
      const { dump, observed } = await fixture();
      const bucket = await backend.newBucket();
      await backend.restore(bucket, "old/", dump);
      const service = backend.open(bucket, "old");
      expect(JSON.parse(JSON.stringify(await observeLayout(service)))).toEqual(observed);
      await service.close();
    });

    it("the objects written now are the ones it wrote, byte for byte", async () => {
      const { dump } = await fixture();
      const bucket = await backend.newBucket();
      const service = backend.open(bucket, "new");
      await writeLayoutScenario(service);
      await service.close();
      const written = await backend.dump(bucket, "new/");
      expect(normaliseDump(written)).toEqual(normaliseDump(dump));
    });
  });
}
