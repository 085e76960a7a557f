import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the real fs adapter (built by ../patched/build.ts): each replaces exact
// source text in files of packages/fs/src.

/** store.ts imports rm, for the copies that remove a reservation file. */
const IMPORT_RM = {
  file: "store.ts",
  find: 'import { randomUUID } from "node:crypto";',
  replace: 'import { randomUUID } from "node:crypto";\nimport { rm } from "node:fs/promises";',
};

export const FS_MUTANTS: readonly PatchedMutantSpec[] = [
  {
    slug: "delete-all-resets-high-water",
    // Another handle's stale allocation hint is what reuses the number: the handles family's
    // fixed case reaches it at once (before, the concurrent or random puts through two handles
    // caught it only by chance).
    group: "handles",
    bug: 'delete("all") removes the reservations and forgets the high-water: versions are reused',
    patches: [
      IMPORT_RM,
      {
        file: "store.ts",
        find: "for (const version of entombed) await dropDeleted(dir, version, this.#config);",
        replace:
          "for (const version of entombed) {\n        await dropDeleted(dir, version, this.#config);\n        await rm(join(dir, `${version}.r`), { force: true });\n      }\n      this.#allocator.clear();",
      },
    ],
  },
  {
    slug: "delete-by-number-drops-reservation",
    // As the copy above, by a delete by number: no other fixed law puts through one handle
    // above the other's last allocation and deletes that by number (the random two-handle
    // sequences may, by chance).
    group: "handles",
    bug: "a delete by number removes the version's reservation: another handle whose allocation hint points there reuses the number",
    patches: [
      IMPORT_RM,
      {
        file: "store.ts",
        find: "if (await unpublish(dir, request.selector, this.#config)) removed = 1;",
        replace:
          "if (await unpublish(dir, request.selector, this.#config)) {\n        removed = 1;\n        await rm(join(dir, `${request.selector}.r`), { force: true });\n      }",
      },
    ],
  },
  {
    slug: "delete-latest-takes-oldest",
    bug: 'delete("latest") removes the oldest live version',
    patches: [
      {
        file: "store.ts",
        find: `const latest = await this.#latest(dir, request, async (at) =>
          (await isLive(at.dir, at.version)) ? at.version : undefined,
        );`,
        replace: "const latest = (await this.#liveVersions(dir)).at(0);",
      },
    ],
  },
  {
    slug: "versions-string-order",
    bug: "orders versions as strings (10 before 9): latest and listings go wrong past version 9",
    patches: [
      {
        file: "version-files.ts",
        find: "return [...published].filter((version) => !deleted.has(version)).sort(compareNumbers);",
        replace: "return [...published].filter((version) => !deleted.has(version)).sort();",
      },
    ],
  },
  {
    slug: "inclusive-name-cursor",
    bug: "treats the name cursor as inclusive",
    patches: [
      {
        file: "name-order.ts",
        find: ": indexAfter(sorted, start.from, same, compareUtf8);",
        replace: ": indexFrom(sorted, start.from, same, compareUtf8);",
      },
    ],
  },
  {
    slug: "version-cursor-must-be-live",
    bug: "a version cursor deleted between pages restarts the listing",
    patches: [
      {
        file: "live-listing.ts",
        find: "...(request.cursor === undefined ? {} : { from: request.cursor }),",
        replace:
          "...(request.cursor === undefined || !(await listing.liveVersions(dir)).includes(request.cursor) ? {} : { from: request.cursor }),",
      },
    ],
  },
  {
    slug: "created-at-on-read",
    bug: "stamps createdAt with the time of each read",
    patches: [
      {
        file: "version-files.ts",
        find: "createdAt: meta.createdAt,",
        replace: "createdAt: Date.now(),",
      },
    ],
  },
  {
    slug: "reads-drop-idempotency-key",
    bug: "reads of a keyed version leave out its idempotencyKey",
    patches: [
      {
        file: "version-files.ts",
        find: "...(meta.idempotencyKey === undefined ? {} : { idempotencyKey: meta.idempotencyKey }),",
        replace: "",
      },
    ],
  },
  {
    slug: "joined-scope-ids",
    bug: 'keys scopes by their ids joined with "/" and only checks that a slot holds some scope',
    patches: [
      { file: "store.ts", find: "scopeDigest(", replace: "joinedScopeDigest(", all: true },
      {
        file: "store.ts",
        find: "  type NamePage,\n",
        replace: "  type NamePage,\n  type Scope,\n",
      },
      {
        file: "slots.ts",
        find: "const digest = scopeDigest(scope);",
        replace:
          'const digest = scopeDigest({ kind: "app", app: Object.values(scope).slice(1).join("/") } as Scope);',
      },
      {
        file: "slots.ts",
        find: "if (sameScope(validateScope(slot.scope), scope)) return true;",
        replace: "if (validateScope(slot.scope)) return true;",
      },
      {
        file: "store.ts",
        find: "export class FsStore",
        replace:
          'function joinedScopeDigest(scope: Scope): string {\n  return scopeDigest({ kind: "app", app: Object.values(scope).slice(1).join("/") } as Scope);\n}\n\nexport class FsStore',
      },
    ],
  },
  {
    slug: "repair-ignores-grace",
    // Only the maintenance family runs repair() beside puts in flight (README: "maintenance
    // (only it)"): its laws alone run, and one of them must kill it.
    group: "maintenance",
    bug: "repair() removes or empties unpublished payloads whatever their age, including those of puts in flight",
    patches: [
      {
        file: "repair.ts",
        find: "return now - (await lstat(path)).mtimeMs >= minAgeMs;",
        replace: "return now - (await lstat(path)).mtimeMs >= 0;",
      },
    ],
  },
  {
    slug: "repair-drops-deleted-reservations",
    group: "maintenance",
    bug: "repair() removes a deleted version's reservation with its payload: the run of reservations an instance probes upward from a version it has seen breaks there, and it reads an older version as latest",
    patches: [
      {
        file: "repair.ts",
        find: 'for (const kind of ["d", "m"] as const) {',
        replace: 'for (const kind of ["d", "m", "r"] as const) {',
      },
    ],
  },
  {
    slug: "latest-read-ahead-any-version",
    // Only a handle whose last seen top is stale reaches it: another handle put above it.
    group: "handles",
    bug: "the read of the latest begun ahead of the probe answers whatever number the walk reads first: a handle that last saw version v answers v after another handle put v+1",
    patches: [
      {
        file: "latest-read-ahead.ts",
        find: "if (found !== undefined && version === this.#version) {",
        replace: "if (found !== undefined) {",
      },
    ],
  },
  {
    slug: "keyed-put-publishes-before-gate",
    // No law but the publication family's gives a put a publishGate.
    group: "publication",
    bug: "a keyed put links its binding to the published name without waiting for its publishGate",
    patches: [
      {
        file: "publication.ts",
        find: "    await request.publishGate;\n    if (binding === undefined) {\n",
        replace: "    if (binding === undefined) {\n      await request.publishGate;\n",
      },
    ],
  },
  {
    slug: "gate-after-link",
    group: "publication",
    bug: "a put links its version file to the published name, then waits for its publishGate: a refused gate leaves the version published",
    patches: [
      {
        file: "publication.ts",
        find: '    await request.publishGate;\n    if (binding === undefined) {\n      // Only here: a put that bound its key is past its commit point, whatever the deadline.\n      deadline.check();\n      await link(versionFileAt, versionFile(nameDirs.dir, meta.version, "m"));\n',
        replace:
          '    if (binding === undefined) {\n      deadline.check();\n      await link(versionFileAt, versionFile(nameDirs.dir, meta.version, "m"));\n      await request.publishGate;\n',
      },
    ],
  },
  {
    slug: "replay-finishes-before-gate",
    group: "publication",
    bug: "a keyed retry that finds its key bound to an unpublished version publishes it without waiting for its publishGate",
    patches: [
      {
        file: "publication.ts",
        find: "    await staging.request.publishGate; // a replay may finish the binding's publication\n",
        replace: "",
      },
    ],
  },
];

/**
 * Copies that pass every law but the scale laws, which were not run over them (issue 31,
 * durable batch; conformance/README.md says why no deterministic law reaches them). Not run
 * against the kit: test/mutants.test.ts only builds them, so that their patches follow the
 * source until a law can catch them.
 */
export const SURVIVING_FS_MUTANTS: readonly PatchedMutantSpec[] = [
  {
    slug: "compaction-drops-in-flight-entries",
    bug: "a compaction removes every log entry it read, also those of names whose slot was not linked yet: a name created during the compaction is in neither the index nor the log",
    patches: [
      {
        file: "name-order.ts",
        find: "const files = folded.map((entry) => entry.file);",
        replace: "const files = log.map((entry) => entry.file);",
      },
    ],
  },
  {
    slug: "directory-cache-unsettled",
    bug: "a directory read is reused while the directory's times are unchanged, also when they were read within the filesystem's timestamp tick: a second change in that tick is missed",
    patches: [
      {
        file: "dir-cache.ts",
        find: "if (settled(stats.mtimeNs) && settled(stats.ctimeNs)) {",
        replace: "if (settled !== undefined) {",
      },
    ],
  },
  {
    slug: "finish-binding-skips-tombstone",
    bug: "finishing a keyed put links its metadata without looking for a tombstone after the link: a keyed retry racing a delete brings the deleted version back",
    patches: [
      {
        file: "keys.ts",
        find: `  const gone =
    deleted === true || (linked && !carriesPayload && !(await payloadPresent(binding, at)));`,
        replace: `  const gone = linked && !carriesPayload && !(await payloadPresent(binding, at));`,
      },
    ],
  },
];
