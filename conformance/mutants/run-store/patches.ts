import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the real run stores (built by ./build.ts): each replaces exact source
// text in files of packages/run-store/src. Issue 31's third batch: reloads, recreated runs,
// text decoding, id and path limits, bounds handed out.

/** Mutants of `ArtifactServiceRunStore`: run over a memory service, reopened as a new store. */
export const SERVICE_STORE_PATCHES: readonly PatchedMutantSpec[] = [
  {
    slug: "reload-sorts-by-path",
    bug: "a reload orders a run's files by path, not by their stored registration order",
    patches: [
      {
        file: "service-store.ts",
        find: ".sort((a, b) => a.file.order - b.file.order);",
        replace: ".sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));",
      },
    ],
  },
  {
    slug: "reload-total-is-last-run",
    bug: "a reload sets the store's total bytes to the last run's bytes, not the sum",
    patches: [
      {
        file: "service-store.ts",
        find: "totalBytes += run.bytes;",
        replace: "totalBytes = run.bytes;",
      },
    ],
  },
  {
    slug: "reload-next-order-from-count",
    bug: "a reload numbers the next new file from the run's file count: after a remove it takes an order already used, and the reload after it puts it in the wrong place",
    patches: [
      {
        file: "service-store.ts",
        find: "run.nextOrder = file.order + 1;",
        replace: "run.nextOrder = run.files.size + 1;",
      },
    ],
  },
  {
    slug: "upsert-takes-a-new-order",
    bug: "an upsert records a new registration order: the file keeps its place until a reload moves it last",
    patches: [
      {
        file: "service-store.ts",
        find: "order: replaced?.order ?? run?.nextOrder ?? 1,",
        replace: "order: run?.nextOrder ?? 1,",
      },
    ],
  },
  {
    slug: "upsert-keeps-first-encoding",
    bug: "an upsert keeps the encoding of the path's first write: text over bytes comes back as bytes",
    patches: [
      {
        file: "service-store.ts",
        find: 'const encoding: Encoding = typeof kept === "string" ? "utf8" : "bytes";',
        replace:
          'const encoding: Encoding = replaced?.encoding ?? (typeof kept === "string" ? "utf8" : "bytes");',
      },
    ],
  },
  {
    slug: "clear-leaves-files-in-the-service",
    bug: "clear drops the run from the index and the registry but leaves its files in the service: a run recreated with the same id gets them back at the next reload",
    patches: [
      {
        file: "service-store.ts",
        find: "for (const path of [...run.files.keys()]) await this.#removeFile(runs, validRunId, run, path);",
        replace:
          "this.#account(run, -run.bytes);\n      runs.delete(validRunId);\n      await this.#deleteAll(this.#registry(), markerName(validRunId));",
      },
    ],
  },
  {
    slug: "upsert-resets-next-order",
    bug: "an upsert sets the run's next order to its own order plus one: the next new file takes an order already used, misplaced at the next reload",
    patches: [
      {
        file: "service-store.ts",
        find: "target.nextOrder = Math.max(target.nextOrder, record.order + 1);",
        replace: "target.nextOrder = record.order + 1;",
      },
    ],
  },
  {
    slug: "default-text-decoder",
    bug: "text is read back with a default TextDecoder, which drops a leading byte order mark",
    patches: [
      {
        file: "service-store.ts",
        find: 'return file.encoding === "utf8" ? decodeUtf8(data) : new Uint8Array(data);',
        replace:
          'return file.encoding === "utf8" ? new TextDecoder().decode(data) : new Uint8Array(data);',
      },
    ],
  },
];

/** Mutants of `InMemoryRunStore` (their validation and bounds are shared with the other store). */
export const MEMORY_STORE_PATCHES: readonly PatchedMutantSpec[] = [
  {
    slug: "id-limit-four-times",
    bug: "run and step ids are checked against four times the 256-byte limit",
    patches: [
      {
        file: "validate.ts",
        find: "const id = validateText(value, field, MAX_SCOPE_ID_BYTES);",
        replace: "const id = validateText(value, field, 4 * MAX_SCOPE_ID_BYTES);",
      },
    ],
  },
  {
    slug: "path-limit-in-units",
    bug: "a path's 1,024 limit is counted in UTF-16 units: a path of 600 'é' (1,200 bytes) is taken",
    patches: [
      {
        file: "validate.ts",
        find: 'const path = validateName(value, "path");',
        replace:
          'const path = validateName(typeof value === "string" && value.length <= 1024 ? value.replace(/[^\\x00-\\x7f]/g, "e") : value, "path") && (value as string);',
      },
    ],
  },
  {
    slug: "bounds-unfrozen",
    bug: "bounds() hands out the object the store enforces: a caller that changes it changes the bounds",
    patches: [
      { file: "bounds.ts", find: "return Object.freeze(bounds);", replace: "return bounds;" },
    ],
  },
];
