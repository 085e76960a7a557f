import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the stream package's opt-in buffering (packages/stream/src/buffered.ts),
// built by ../patched/build.ts: one bug each, of classes the buffering laws of
// test/buffered-mutants.test.ts must reject.

export const STREAM_MUTANTS: readonly PatchedMutantSpec[] = [
  {
    slug: "range-bound-on-length",
    bug: "a range download is measured by the range's length, not the artifact's size it loads whole",
    patches: [
      {
        file: "buffered.ts",
        find: "if (head.size > maxBytes) {",
        replace: "if (resolveRange(request.range, head.size).length > maxBytes) {",
      },
    ],
  },
  {
    slug: "gets-latest-not-measured",
    bug: 'a download of "latest" gets whatever is latest after its head, not the version it measured',
    patches: [
      {
        file: "buffered.ts",
        find: "version: head.version,",
        replace: "version: request.version,",
      },
    ],
  },
  {
    slug: "deleted-latest-not-found",
    bug: "a latest deleted between the head and the get is not_found while older versions live",
    patches: [
      {
        file: "buffered.ts",
        find: 'if (request.version !== "latest" || !isArtifactError(error, "not_found")) throw error;',
        replace: 'if (request.version !== "latest" || isArtifactError(error)) throw error;',
      },
    ],
  },
  {
    slug: "put-without-deadline",
    bug: "the gathered put is made without the upload's signal and deadline",
    patches: [
      {
        file: "buffered.ts",
        find: "...contentOptions(request),\n    ...deadline.toRequestOptions(),",
        replace: "...contentOptions(request),",
      },
    ],
  },
  {
    slug: "get-without-deadline",
    bug: "the whole-artifact get is made without the download's signal and deadline",
    patches: [
      {
        file: "buffered.ts",
        find: "version: head.version,\n        ...deadline.toRequestOptions(),",
        replace: "version: head.version,",
      },
    ],
  },
  {
    slug: "serves-the-rest-at-once",
    bug: "a read serves everything left in one piece, not one verification block at a time",
    patches: [
      {
        file: "buffered.ts",
        find: "Math.min(end, this.#at + TRANSFER_BLOCK_BYTES)",
        replace: "end",
      },
    ],
  },
  {
    slug: "reads-past-the-deadline",
    bug: "reads of a buffered download no longer check its deadline and signal",
    patches: [
      {
        file: "buffered.ts",
        find: "if (this.#at >= end) return undefined;\n    this.#deadline.check();",
        replace: "if (this.#at >= end) return undefined;",
      },
    ],
  },
  {
    slug: "retains-the-last-upload",
    bug: "the last upload's chunks are kept after it is published (for a retry that never comes)",
    patches: [
      {
        file: "buffered.ts",
        find: "export interface BufferingOptions {",
        replace: "let retained: Uint8Array[] = [];\nexport interface BufferingOptions {",
      },
      {
        file: "buffered.ts",
        find: "putGathered(service, request, chunks.splice(0), digest, deadline),",
        replace: "putGathered(service, request, (retained = chunks.splice(0)), digest, deadline),",
      },
    ],
  },
];
