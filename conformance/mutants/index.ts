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
import {
  CountsNamesAsCesu8,
  DropsNulInMetadata,
  DropsThe257thName,
  LosesProtoKeys,
  NormalizesScopeIds,
  UploadRetryPublishesTwice,
} from "./domain.js";
import { EIGHTH_ROUND_MUTANTS } from "./eighth-round.js";
import { FIFTH_ROUND_MUTANTS } from "./fifth-round.js";
import {
  ForgetsKeysOfEmptiedNames,
  JudgesPayloadBeforeDeletion,
  ListingsDropIdempotencyKey,
} from "./keys.js";
import {
  ChecksRoomThenWrites,
  DeleteFreesTheLatestsRoom,
  RefusesRetriesAtAFullQuota,
  UploadRefusesRetriesAtAFullQuota,
} from "./ledger.js";
import { DeleteHidesBeforeRemoving } from "./observers.js";
import { PUBLISH_GATE_MUTANTS } from "./publish-gate.js";
import {
  CopiesBufferLate,
  CreatedAtOnRead,
  EmptyDataBecomesNul,
  IgnoresIdempotencyKey,
  JoinsScopeIds,
  KeepsCallerMetadata,
  SharesHeadRecords,
  ShaWrongAbove20Bytes,
  TruncatesAtBlockBoundary,
} from "./records.js";
import { RenumberingService } from "./renumbering.js";
import {
  InclusiveScopeCursor,
  ListsEmptiedScopes,
  ScopesInUtf16Order,
  UsersOnlyByOwnScope,
} from "./scopes.js";
import {
  DeleteFreesNoRoom,
  EmptyPageWithCursor,
  ListShowsDeletedVersions,
  NameCursorRestarts,
  StaleHeadLatest,
  TransferOutlivesClose,
  VersionCursorRestarts,
  VersionPagesUncapped,
} from "./state.js";
import {
  AbortPublishes,
  KeepsLentChunks,
  RangeOffByOne,
  ServesUndeclaredTransfer,
} from "./transfer.js";
import {
  AbortAfterFinishDeletes,
  DeadlineCountsAsPayload,
  DeleteClampsVersion,
  DownloadIgnoresDeadline,
  DownloadReportsLatestMeta,
  EmptyMetadataIsNotAbsent,
  EmptyRangeServesTheTail,
  EmptyUploadFails,
  FailedPutBindsItsKey,
  HeadSkipsNameValidation,
  LateAbortUndoesThePut,
  LegacyListInUtf16Order,
  ListScopesIgnoresDeadline,
  ListSkipsScopeValidation,
  NonFiniteVersionCursorIgnored,
  PrefixIgnoresCase,
  ReadsIgnoreDeadlineWhenFound,
  RefusesSubMillisecondTimeouts,
  SizeBoundCountsMetadata,
  ThrowsSynchronously,
  UnsafeVersionsLookedUp,
  UploadDropsBadMetadata,
} from "./unnamed.js";
import {
  BackslashIsSlash,
  CapabilitiesShallowFrozen,
  ConcurrentLatestDeletesCollide,
  DeleteAllByPrefix,
  DeleteIgnoresUnknownOptions,
  DownloadFollowsLatest,
  EchoDropsSession,
  EmptyChunkEndsUpload,
  FinishTwicePublishesTwice,
  HeadCarriesData,
  IgnoresByteOffset,
  MetadataBytesAsEscapedJson,
  MimeTypeLowercased,
  PrefixAsLikePattern,
  RangeLengthReportsTheRest,
  ReadAfterEndRestarts,
  RefusesBuffers,
  RefusesMaxTimeout,
  UploadIgnoresByteOffset,
} from "./unnamed-4.js";
import {
  AppScopeExtraKeysIgnored,
  ClosedCapabilitiesThrow,
  DownloadFallsBackToLatest,
  LeavesAbortListeners,
  LegacyListLimitCountsNames,
  MimeTypeSurvivesEmptying,
  QuotaNamesTheWrongBound,
  UploadRecordDropsKey,
  WriteAfterFinishIgnored,
} from "./unnamed-5.js";

export interface Mutant {
  name: string;
  /** The memory adapter with the given options, broken in exactly one way. */
  make: (options?: MemoryArtifactServiceOptions) => ArtifactService;
  /** Every fixed law passes it: only the model-based check can reject it. */
  onlyTheModelCatches?: true;
  /** Only the laws of this group see the bug: the first law to fail must be one of them. */
  onlyCaughtBy?: string;
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
    make: (o) => new RenumberingService(memory(o), (_live, highWater) => highWater + 1, true),
  },
  {
    name: "reports a wrong sha256 for data over 20 bytes",
    make: (o) => new ShaWrongAbove20Bytes(memory(o)),
  },
  { name: "latest ignores deletion", make: (o) => new StaleLatest(memory(o)) },
  { name: "head(latest) ignores deletion", make: (o) => new StaleHeadLatest(memory(o)) },
  {
    name: "list() shows versions deleted by number",
    make: (o) => new ListShowsDeletedVersions(memory(o)),
  },
  { name: "leaks an artifact into another scope", make: (o) => new LeaksAcrossScopes(memory(o)) },
  { name: 'keys scopes by ids joined with "/"', make: (o) => new JoinsScopeIds(memory(o)) },
  { name: "accepts a .. segment", make: (o) => new AcceptsDotDot(memory(o)) },
  { name: "drops metadata", make: (o) => new DropsMetadata(memory(o)) },
  { name: "stamps createdAt on every read", make: (o) => new CreatedAtOnRead(memory(o)) },
  {
    name: "truncates data at a block boundary",
    make: (o) => new TruncatesAtBlockBoundary(memory(o)),
  },
  { name: "stores empty data as one NUL byte", make: (o) => new EmptyDataBecomesNul(memory(o)) },
  { name: "inclusive cursor", make: (o) => new InclusiveCursor(memory(o)) },
  { name: "skips an item at a page boundary", make: (o) => new SkipsAtPageBoundary(memory(o)) },
  {
    name: "a deleted name cursor restarts the listing",
    make: (o) => new NameCursorRestarts(memory(o)),
  },
  {
    name: "a deleted version cursor restarts the listing",
    make: (o) => new VersionCursorRestarts(memory(o)),
  },
  {
    name: "an empty page that still has a cursor",
    make: (o) => new EmptyPageWithCursor(memory(o)),
  },
  { name: "listVersions ignores maxPageLimit", make: (o) => new VersionPagesUncapped(memory(o)) },
  { name: "wrong sort order for astral names", make: (o) => new Utf16Order(memory(o)) },
  { name: "publishes after the deadline", make: (o) => new PublishesAfterDeadline(memory(o)) },
  { name: "mutable stored bytes", make: (o) => new MutableStoredBytes(memory(o)) },
  { name: "shares head records with the store", make: (o) => new SharesHeadRecords(memory(o)) },
  { name: "keeps the caller's metadata object", make: (o) => new KeepsCallerMetadata(memory(o)) },
  { name: "copies the caller's buffer a turn late", make: (o) => new CopiesBufferLate(memory(o)) },
  {
    name: "ignores the idempotency key",
    make: (o) => new IgnoresIdempotencyKey(memory(o)),
  },
  {
    name: "forgets the idempotency keys of a name a delete emptied",
    make: (o) => new ForgetsKeysOfEmptiedNames(memory(o)),
  },
  {
    name: "judges a retry's payload before its bound version's deletion",
    make: (o) => new JudgesPayloadBeforeDeletion(memory(o)),
  },
  {
    name: "leaves idempotencyKey out of listings",
    make: (o) => new ListingsDropIdempotencyKey(memory(o)),
    onlyTheModelCatches: true,
  },
  { name: "quota off by one", make: (o) => new QuotaOffByOne(memory(o)) },
  {
    name: "a delete frees no room under maxScopeBytes",
    make: (o) => new DeleteFreesNoRoom(memory(o)),
  },
  {
    name: "streaming transfer outlives close()",
    make: (o) => new TransferOutlivesClose(memory(o)),
  },
  { name: "serves byte ranges one byte late", make: (o) => new RangeOffByOne(memory(o)) },
  { name: "publishes an aborted upload", make: (o) => new AbortPublishes(memory(o)) },
  { name: "keeps a lent upload chunk", make: (o) => new KeepsLentChunks(memory(o)) },
  {
    name: "serves streamed uploads it does not declare",
    make: (o) => new ServesUndeclaredTransfer(memory(o), "streamingUpload"),
  },
  {
    name: "serves byte ranges it does not declare",
    make: (o) => new ServesUndeclaredTransfer(memory(o), "byteRanges"),
  },
  {
    name: "hides deleted versions from listings a turn before it deletes them",
    make: (o) => new DeleteHidesBeforeRemoving(memory(o)),
    onlyCaughtBy: "linearizability",
  },
  // The blind spots of issue 31: scale, the value domain, every write path retried, quotas.
  { name: "drops the 257th name of a scope", make: (o) => new DropsThe257thName(memory(o)) },
  { name: 'loses "__proto__" metadata keys', make: (o) => new LosesProtoKeys(memory(o)) },
  {
    name: "drops NUL from metadata strings and keys",
    make: (o) => new DropsNulInMetadata(memory(o)),
  },
  {
    name: "counts name bytes as CESU-8 (refuses valid 1,024-byte names)",
    make: (o) => new CountsNamesAsCesu8(memory(o)),
  },
  { name: "NFC-normalizes scope ids", make: (o) => new NormalizesScopeIds(memory(o)) },
  {
    name: "a keyed retry of a streamed upload publishes again",
    make: (o) => new UploadRetryPublishesTwice(memory(o)),
  },
  {
    name: "a delete by number frees the latest version's room",
    make: (o) => new DeleteFreesTheLatestsRoom(memory(o)),
  },
  {
    name: "checks the quota before the idempotency key",
    make: (o) => new RefusesRetriesAtAFullQuota(memory(o)),
  },
  {
    name: "a streamed upload checks the room before its key",
    make: (o) => new UploadRefusesRetriesAtAFullQuota(memory(o)),
  },
  {
    name: "checks the room, then writes without holding it: racing puts all get in",
    make: (o) => {
      const { maxScopeBytes, ...rest } = o ?? {};
      return new ChecksRoomThenWrites(memory(rest), maxScopeBytes);
    },
  },
  // listScopes (issue 34): liveness, each level's rule, cursors and order.
  { name: "lists scopes a delete emptied", make: (o) => new ListsEmptiedScopes(memory(o)) },
  {
    name: "lists a user only for its own user scope, not its sessions",
    make: (o) => new UsersOnlyByOwnScope(memory(o)),
  },
  { name: "an inclusive scope cursor", make: (o) => new InclusiveScopeCursor(memory(o)) },
  { name: "scope ids in UTF-16 order", make: (o) => new ScopesInUtf16Order(memory(o)) },
  // Classes no issue named (issue 31, third round): one operation skipping a step the others
  // take, numbers past the safe integers, late cancellations, traces of failed writes.
  { name: "head does not validate the name", make: (o) => new HeadSkipsNameValidation(memory(o)) },
  {
    name: "the legacy list does not validate the scope",
    make: (o) => new ListSkipsScopeValidation(memory(o)),
  },
  {
    name: "looks up versions past the safe integers",
    make: (o) => new UnsafeVersionsLookedUp(memory(o)),
  },
  {
    name: "takes a NaN or infinite version cursor for none",
    make: (o) => new NonFiniteVersionCursorIgnored(memory(o)),
  },
  {
    name: "listScopes ignores its deadline",
    make: (o) => new ListScopesIgnoresDeadline(memory(o)),
  },
  {
    name: "openDownload ignores its deadline",
    make: (o) => new DownloadIgnoresDeadline(memory(o)),
  },
  {
    name: "a streamed upload drops metadata it cannot store",
    make: (o) => new UploadDropsBadMetadata(memory(o)),
  },
  { name: "the legacy list in UTF-16 order", make: (o) => new LegacyListInUtf16Order(memory(o)) },
  {
    name: "a range of length 0 serves the tail",
    make: (o) => new EmptyRangeServesTheTail(memory(o)),
  },
  {
    name: "a keyed retry tells {} metadata from none",
    make: (o) => new EmptyMetadataIsNotAbsent(memory(o)),
  },
  {
    name: "aborting a put's signal after it resolved deletes its version",
    make: (o) => new LateAbortUndoesThePut(memory(o)),
  },
  { name: "put throws bad names synchronously", make: (o) => new ThrowsSynchronously(memory(o)) },
  {
    name: "a failed keyed put leaves its key bound",
    make: (o) => new FailedPutBindsItsKey(memory(o)),
  },
  {
    name: "a download of an older version reports the latest record",
    make: (o) => new DownloadReportsLatestMeta(memory(o)),
  },
  {
    name: "abort() after finish() deletes the upload",
    make: (o) => new AbortAfterFinishDeletes(memory(o)),
  },
  {
    name: "the size bound counts metadata",
    make: (o) => new SizeBoundCountsMetadata(memory(o)),
  },
  {
    name: "a delete by a version above the high-water deletes the latest",
    make: (o) => new DeleteClampsVersion(memory(o)),
  },
  { name: "a name prefix matches without case", make: (o) => new PrefixIgnoresCase(memory(o)) },
  {
    name: "get checks the deadline only when the artifact is missing",
    make: (o) => new ReadsIgnoreDeadlineWhenFound(memory(o)),
  },
  {
    name: "refuses a timeout below 1 ms",
    make: (o) => new RefusesSubMillisecondTimeouts(memory(o)),
  },
  { name: "an upload with no chunk fails", make: (o) => new EmptyUploadFails(memory(o)) },
  {
    name: "a keyed retry with another deadline is another payload",
    make: (o) => new DeadlineCountsAsPayload(memory(o)),
  },
  // Issue 31's fourth round (unnamed-4.ts, unnamed-5.ts): inputs as views, streams that end
  // twice or drift, prefixes as patterns, rewritten names, normalised or extra fields,
  // check-then-act across an await, counts of the wrong unit, state an emptied name keeps.
  { name: "copies a view from its buffer's start", make: (o) => new IgnoresByteOffset(memory(o)) },
  {
    name: "stages an upload chunk from its buffer's start",
    make: (o) => new UploadIgnoresByteOffset(memory(o)),
  },
  { name: "refuses a Node Buffer as data", make: (o) => new RefusesBuffers(memory(o)) },
  {
    name: "a second finish() publishes again",
    make: (o) => new FinishTwicePublishesTwice(memory(o)),
  },
  {
    name: "a download of latest follows a newer latest between pieces",
    make: (o) => new DownloadFollowsLatest(memory(o)),
  },
  { name: "read() after the end starts over", make: (o) => new ReadAfterEndRestarts(memory(o)) },
  {
    name: "a ranged download reports the rest of the data as its length",
    make: (o) => new RangeLengthReportsTheRest(memory(o)),
  },
  { name: "a prefix is a LIKE pattern", make: (o) => new PrefixAsLikePattern(memory(o)) },
  { name: "a backslash in a name is a slash", make: (o) => new BackslashIsSlash(memory(o)) },
  { name: "lower-cases the MIME type", make: (o) => new MimeTypeLowercased(memory(o)) },
  {
    name: "measures metadata as ASCII-escaped JSON",
    make: (o) => new MetadataBytesAsEscapedJson(memory(o)),
  },
  { name: "head carries the data", make: (o) => new HeadCarriesData(memory(o)) },
  {
    name: "capabilities() is frozen only at its top",
    make: (o) => new CapabilitiesShallowFrozen(memory(o)),
  },
  {
    name: 'concurrent delete("latest") calls delete one version',
    make: (o) => new ConcurrentLatestDeletesCollide(memory(o)),
  },
  { name: 'delete("all") deletes by prefix', make: (o) => new DeleteAllByPrefix(memory(o)) },
  { name: "refuses the maximum timeout", make: (o) => new RefusesMaxTimeout(memory(o)) },
  { name: "an empty chunk ends the upload", make: (o) => new EmptyChunkEndsUpload(memory(o)) },
  {
    name: "a session's page of names echoes its user scope",
    make: (o) => new EchoDropsSession(memory(o)),
  },
  {
    name: "delete ignores unknown options",
    make: (o) => new DeleteIgnoresUnknownOptions(memory(o)),
  },
  {
    name: "an app scope's stray ids are ignored",
    make: (o) => new AppScopeExtraKeysIgnored(memory(o)),
  },
  {
    name: "a write after finish() is taken silently",
    make: (o) => new WriteAfterFinishIgnored(memory(o)),
  },
  {
    name: "the legacy list's bound counts names",
    make: (o) => new LegacyListLimitCountsNames(memory(o)),
  },
  {
    name: "capabilities() fails after close()",
    make: (o) => new ClosedCapabilitiesThrow(memory(o)),
  },
  {
    name: "a put leaves a listener on the caller's signal",
    make: (o) => new LeavesAbortListeners(memory(o)),
  },
  {
    name: "a download of a deleted version serves the latest",
    make: (o) => new DownloadFallsBackToLatest(memory(o)),
  },
  {
    name: "an emptied name's next put inherits its old MIME type",
    make: (o) => new MimeTypeSurvivesEmptying(memory(o)),
  },
  {
    name: "an upload's record leaves out its idempotency key",
    make: (o) => new UploadRecordDropsKey(memory(o)),
  },
  {
    name: "quota_exceeded names the wrong bound",
    make: (o) => new QuotaNamesTheWrongBound(memory(o)),
  },
  ...FIFTH_ROUND_MUTANTS,
  ...EIGHTH_ROUND_MUTANTS,
  ...PUBLISH_GATE_MUTANTS,
];
