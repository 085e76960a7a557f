import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactMeta, ArtifactService } from "@artifact-kit/core";
import {
  describeArtifactService,
  describeRunStore,
  flipFileByte,
} from "@artifact-kit/core/conformance";
import {
  FsArtifactService,
  type FsArtifactServiceOptions,
  fsArtifactPaths,
} from "@artifact-kit/fs";
import { FS_KNOWN_GAPS } from "@artifact-kit/fs/testing";
import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import { withRunStoreTelemetry, withTelemetry } from "../src/index.js";
import { TelemetryHarness } from "./support/sdk.js";

// The wrapper must not change behaviour: the whole kit runs through it, with the real SDK
// recording every span and metric (and names recorded, so that the attribute paths run too).

/** Each subject records into its own SDK, shut down with the subject. */
function traced(service: ArtifactService, harness = new TelemetryHarness()) {
  return withTelemetry(service, {
    ...harness.providers,
    recordNames: "digest",
    recordScopeIds: "plain",
  });
}

/** Memory quotas small enough for the kit to drive every bound to its edge (as in the matrix). */
const SMALL_MEMORY_QUOTAS: MemoryArtifactServiceOptions = {
  maxArtifactBytes: 4096,
  maxScopeBytes: 16_384,
  maxTotalBytes: 32_768,
  maxScopeArtifacts: 40,
  maxTotalArtifacts: 100,
  maxPageLimit: 25,
  legacyListLimit: 30,
};

describeArtifactService("withTelemetry(memory)", {
  create: async () => ({ service: traced(new MemoryArtifactService()) }),
  createBounded: async () => ({ service: traced(new MemoryArtifactService(SMALL_MEMORY_QUOTAS)) }),
  numRuns: 50,
});

const tracedFs = async (root: string, options: Omit<FsArtifactServiceOptions, "root">) =>
  traced(await FsArtifactService.open({ ...options, root }));

/** A traced fs service on a fresh root; reopen and corruption close over that root. */
const fsSubject = (options: Omit<FsArtifactServiceOptions, "root">) => async () => {
  const root = await mkdtemp(join(tmpdir(), "otel-fs-"));
  return {
    service: await tracedFs(root, options),
    reopen: () => tracedFs(root, options),
    corrupt: (meta: ArtifactMeta, offset: number) =>
      flipFileByte(fsArtifactPaths(root, meta.scope, meta.name, meta.version).data, offset),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
};

describeArtifactService("withTelemetry(fs)", {
  create: fsSubject({}),
  createBounded: fsSubject({
    maxScanEntries: 12,
    maxArtifactBytes: 4096,
    maxPageLimit: 3,
    legacyListLimit: 4,
  }),
  knownGaps: FS_KNOWN_GAPS,
  numRuns: 15,
});

describeRunStore("withRunStoreTelemetry(InMemoryRunStore)", {
  create: async (bounds) => {
    const harness = new TelemetryHarness();
    const store = withRunStoreTelemetry(new InMemoryRunStore({ bounds }), {
      ...harness.providers,
      recordNames: "plain",
      recordScopeIds: "digest",
    });
    return { store, cleanup: () => harness.shutdown() };
  },
  numRuns: 50,
});
