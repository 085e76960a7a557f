import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import type { Mutant } from "./index.js";
import {
  AbortedUploadBindsKey,
  CorruptsAboveFiveMiB,
  DepthCountsArraysTwice,
  KeyForgottenWhenSuperseded,
  KeyPayloadComparesSizeOnly,
  KeyPayloadIgnoresNestedMetadata,
  LatestFromFirstPage,
  QuotaRefusalListsScope,
  StripsZeroWidth,
  TooLargeReportsSizeAsBound,
} from "./unnamed-6.js";
import {
  EmptyPutsBindNoKey,
  LatestReadInTwoSteps,
  MetadataDropsNullValues,
  RejectsUndefinedOptionValues,
  RepeatedDeleteSucceeds,
  RethrowsCustomAbortReason,
  ScopeListingByIdPrefix,
  ScopePageShared,
  SessionPagesIgnoreLimit,
  ShaDropsLeadingZeros,
  SniffsMimeType,
  UploadReservesMaxBytes,
  UploadRetryIgnoresMetadata,
  ValidatesBeforeClosed,
  VersionCursorAsString,
} from "./unnamed-7.js";

const memory = (options?: MemoryArtifactServiceOptions) => new MemoryArtifactService(options);

// Issue 31's fifth round (unnamed-6.ts, unnamed-7.ts): latest past a page, keys of aborted
// uploads, superseded and empty puts, payloads compared loosely, bound details, scopes a
// refusal lists, names sanitized, large-object paths, depth counted wrong, undefined options,
// ids matched by prefix, cursors of another type, repeated deletes, sniffed types, dropped
// nulls, limits ignored at one level, closed after validation, two-step reads, shared pages,
// custom abort reasons, short digests, reserved quota.
export const FIFTH_ROUND_MUTANTS: readonly Mutant[] = [
  {
    name: "latest is the last of the first page of versions",
    make: (o) => new LatestFromFirstPage(memory(o)),
  },
  {
    name: "an aborted keyed upload leaves its key bound",
    make: (o) => new AbortedUploadBindsKey(memory(o)),
  },
  {
    name: "a key superseded by another put is forgotten",
    make: (o) => new KeyForgottenWhenSuperseded(memory(o)),
  },
  {
    name: "a keyed retry's bytes are compared by size",
    make: (o) => new KeyPayloadComparesSizeOnly(memory(o)),
  },
  {
    name: "a keyed retry's metadata is compared one level deep",
    make: (o) => new KeyPayloadIgnoresNestedMetadata(memory(o)),
  },
  {
    name: "artifact_too_large reports the size as the bound",
    make: (o) => new TooLargeReportsSizeAsBound(memory(o)),
  },
  {
    name: "a put refused by a quota lists its scope",
    make: (o) => new QuotaRefusalListsScope(memory(o)),
  },
  { name: "strips zero-width characters from names", make: (o) => new StripsZeroWidth(memory(o)) },
  { name: "zeroes data past 5 MiB", make: (o) => new CorruptsAboveFiveMiB(memory(o)) },
  {
    name: "counts an array as two levels of metadata depth",
    make: (o) => new DepthCountsArraysTwice(memory(o)),
  },
  {
    name: "refuses options given as undefined",
    make: (o) => new RejectsUndefinedOptionValues(memory(o)),
  },
  {
    name: "lists the users of apps an app id begins",
    make: (o) => new ScopeListingByIdPrefix(memory(o)),
  },
  {
    name: "hands out the version cursor as a string",
    make: (o) => new VersionCursorAsString(memory(o)),
  },
  {
    name: "a repeated delete of a version succeeds",
    make: (o) => new RepeatedDeleteSucceeds(memory(o)),
  },
  { name: "sniffs the MIME type of untyped data", make: (o) => new SniffsMimeType(memory(o)) },
  { name: "drops null metadata values", make: (o) => new MetadataDropsNullValues(memory(o)) },
  {
    name: "a page of sessions ignores its limit",
    make: (o) => new SessionPagesIgnoreLimit(memory(o)),
  },
  {
    name: "validates arguments before the closed check",
    make: (o) => new ValidatesBeforeClosed(memory(o)),
  },
  {
    name: "get(latest) is a head and a get",
    make: (o) => new LatestReadInTwoSteps(memory(o)),
  },
  { name: "listScopes hands out a cached page", make: (o) => new ScopePageShared(memory(o)) },
  {
    name: "a keyed upload retry compares its bytes alone",
    make: (o) => new UploadRetryIgnoresMetadata(memory(o)),
  },
  {
    name: "throws the caller's own abort reason",
    make: (o) => new RethrowsCustomAbortReason(memory(o)),
  },
  {
    name: "drops a digest's leading zeros",
    make: (o) => new ShaDropsLeadingZeros(memory(o)),
  },
  {
    name: "an upload reserves its maxBytes against the scope",
    make: (o) => new UploadReservesMaxBytes(memory(o)),
  },
  { name: "a keyed put of 0 bytes binds no key", make: (o) => new EmptyPutsBindNoKey(memory(o)) },
];
