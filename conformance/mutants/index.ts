import type { ArtifactService } from "@artifact-kit/core";
import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import {
  AcceptsDotDot,
  DropsMetadata,
  InclusiveCursor,
  LeaksAcrossScopes,
  MutableStoredBytes,
  PublishesAfterDeadline,
  QuotaOffByOne,
  SkipsAtPageBoundary,
  StaleLatest,
  Utf16Order,
} from "./broken.js";
import { RenumberingService } from "./renumbering.js";
import { AbortPublishes, KeepsLentChunks, RangeOffByOne } from "./transfer.js";

export interface Mutant {
  name: string;
  /** The memory adapter with the given options, broken in exactly one way. */
  make: (options?: MemoryArtifactServiceOptions) => ArtifactService;
}

const memory = (options?: MemoryArtifactServiceOptions) => new MemoryArtifactService(options);
const highestLive = (live: readonly number[]) => Math.max(0, ...live);

export const MUTANTS: readonly Mutant[] = [
  {
    name: "reuses a version after delete",
    make: (o) => new RenumberingService(memory(o), (live) => highestLive(live) + 1, false),
  },
  {
    name: 'delete("all") resets the version high-water',
    make: (o) => new RenumberingService(memory(o), (_live, counter) => counter + 1, true),
  },
  { name: "latest ignores deletion", make: (o) => new StaleLatest(memory(o)) },
  { name: "leaks an artifact into another scope", make: (o) => new LeaksAcrossScopes(memory(o)) },
  { name: "accepts a .. segment", make: (o) => new AcceptsDotDot(memory(o)) },
  { name: "drops metadata", make: (o) => new DropsMetadata(memory(o)) },
  { name: "inclusive cursor", make: (o) => new InclusiveCursor(memory(o)) },
  { name: "skips an item at a page boundary", make: (o) => new SkipsAtPageBoundary(memory(o)) },
  { name: "wrong sort order for astral names", make: (o) => new Utf16Order(memory(o)) },
  { name: "publishes after the deadline", make: (o) => new PublishesAfterDeadline(memory(o)) },
  { name: "mutable stored bytes", make: (o) => new MutableStoredBytes(memory(o)) },
  { name: "quota off by one", make: (o) => new QuotaOffByOne(memory(o)) },
  { name: "serves byte ranges one byte late", make: (o) => new RangeOffByOne(memory(o)) },
  { name: "publishes an aborted upload", make: (o) => new AbortPublishes(memory(o)) },
  { name: "keeps a lent upload chunk", make: (o) => new KeepsLentChunks(memory(o)) },
];
