import { MemoryArtifactService } from "@artifact-kit/memory";
import { BENCH_SCOPE } from "../kit-store.js";
import { fillNames, fillVersions, growthSuite } from "./growth.js";

const SMALL_NAMES = 100;
const LARGE_NAMES = 200_000;
const MANY_VERSIONS = 10_000;
const data = new Uint8Array(16);

/** Issue 17: memory operations at 100 and at 200,000 names, and with 1 and 10,000 versions. */
export function memoryScaleSuite() {
  return growthSuite({
    title: "memory at scale",
    sizes: { small: "100 names / 1 version", large: "200k names / 10k versions" },
    open: async () =>
      new MemoryArtifactService({
        maxScopeArtifacts: 1_000_000,
        maxTotalArtifacts: 1_000_000,
        maxScopeBytes: 1024 ** 3,
        maxTotalBytes: 1024 ** 3,
      }),
    rows: [
      {
        label: "put of a new name",
        small: (service) => fillNames(service, SMALL_NAMES),
        large: (service) => fillNames(service, LARGE_NAMES),
        probe: (service, round) => service.put(BENCH_SCOPE, `new/${round}`, data),
        bound: 2,
        batch: 16,
      },
      {
        // A full page at both sizes: 100 names hold no full page after a cursor in their
        // middle (that page has 49 names, which made the ratio look like 2x), so the small
        // store's page is its whole listing, from before its first name.
        label: "listNames page of 100 (small: all 100 names; large: from the middle)",
        small: (service) => fillNames(service, SMALL_NAMES),
        large: (service) => fillNames(service, LARGE_NAMES),
        probe: (service) => service.listNames(BENCH_SCOPE, { limit: 100, cursor: "seed/0100000" }),
        probeSmall: (service) => service.listNames(BENCH_SCOPE, { limit: 100, cursor: "seed" }),
        bound: 2,
        batch: 16,
      },
      {
        label: "get latest",
        small: (service) => fillVersions(service, "doc", 1),
        large: (service) => fillVersions(service, "doc", MANY_VERSIONS),
        probe: (service) => service.get(BENCH_SCOPE, "doc"),
        bound: 2,
        batch: 16,
      },
      {
        label: "listVersions page of 100 from the middle",
        small: (service) => fillVersions(service, "doc", 1),
        large: (service) => fillVersions(service, "doc", MANY_VERSIONS),
        probe: (service) => service.listVersions(BENCH_SCOPE, "doc", { limit: 100, cursor: 1 }),
        bound: 2,
        batch: 16,
      },
    ],
  });
}
