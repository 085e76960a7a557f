import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the shared object-store protocol (packages/object-store/src), which gcs,
// s3 and azure run over their SDKs: each runs the kit over the package's in-memory bucket
// (./build.ts), in the dialect whose code the bug is in. The memory bucket lists 4 keys a
// page, so a listing that stops at its first page shows at 5 objects, not 1,001.

export interface ObjectStoreMutantSpec extends PatchedMutantSpec {
  /** trailer: deletion markers, record chunks, name-and-key bindings; header: allocation flags, per-name bindings. */
  readonly dialect: "trailer" | "header";
}

export const OBJECT_STORE_MUTANTS: readonly ObjectStoreMutantSpec[] = [
  {
    slug: "latest-window-skips-its-floor",
    group: "state",
    bug: "the latest lookup lists each window after its lowest version, not from it: a latest at a window's floor is missed",
    dialect: "trailer",
    patches: [
      {
        file: "latest.ts",
        find: "startAfter: this.#layout.versionObject(scope, key, from - 1)",
        replace: "startAfter: this.#layout.versionObject(scope, key, from)",
      },
    ],
  },
  {
    slug: "delete-all-first-listing-page",
    group: "state",
    bug: 'delete("all") removes the versions of the first listing page only',
    dialect: "trailer",
    patches: [
      {
        file: "store.ts",
        find: `      return listAll(this.#bucket, deadline, {
        prefix: this.#layout.versionsPrefix(scope, key),
        maxKeys: this.#bucket.maxListKeys,
      });`,
        replace: `      const page = await this.#bucket.list(deadline, {
        prefix: this.#layout.versionsPrefix(scope, key),
        maxKeys: this.#bucket.maxListKeys,
      });
      return page.objects;`,
      },
    ],
  },
  {
    slug: "version-page-reads-limit",
    group: "state",
    bug: "a page of versions reads `limit` objects, not one more: a page that ends on a listing page's end says it is the last",
    dialect: "header",
    patches: [
      {
        file: "store.ts",
        find: `          : { startAfter: this.#layout.versionObject(scope, key, cursor) }),
      },
      limit + 1,
    );`,
        replace: `          : { startAfter: this.#layout.versionObject(scope, key, cursor) }),
      },
      limit,
    );`,
      },
    ],
  },
  {
    slug: "chunk-fills-page-gaps",
    group: "state",
    bug: "a page of versions read from a record chunk fills its gaps from the chunk: a version deleted after its chunk was written is listed again",
    dialect: "trailer",
    patches: [
      {
        file: "version-index.ts",
        find: "    return entries.flatMap(({ version }) => {",
        replace: `    const low = entries[0];
    const high = entries[entries.length - 1]?.version ?? 0;
    for (const records of low ? chunks.values() : []) {
      for (const [version, record] of records) {
        if (low && version > low.version && version < high && !found.has(version)) {
          found.set(version, { object: low.object, manifest: record.manifest });
          entries.push({ object: low.object, version });
        }
      }
    }
    entries.sort((a, b) => a.version - b.version);
    return entries.flatMap(({ version }) => {`,
      },
    ],
  },
  {
    slug: "bindings-per-scope",
    group: "idempotency",
    bug: "an idempotency key's binding is keyed by the scope and key, not the name: one key on two names answers for the first",
    dialect: "trailer",
    patches: [
      {
        file: "layout.ts",
        find: `sha256Hex(\`\${name}\\u0000\${idempotencyKey}\`)`,
        replace: "sha256Hex(idempotencyKey)",
      },
    ],
  },
  {
    slug: "keyed-flag-inline-only",
    group: "idempotency",
    bug: "the keyed flag is written with the inline manifest, so a keyed version whose manifest is too large to inline looks unkeyed: its delete flags nothing and a retry of its key publishes it again",
    dialect: "header",
    patches: [
      {
        file: "header-format.ts",
        find: `      ...(manifest.idempotencyKey === undefined ? {} : { [KEYED_FLAG]: "1" }),
      ...(Buffer.byteLength(json) <= MAX_INLINE_MANIFEST_BYTES ? { [MANIFEST_KEY]: json } : {}),`,
        replace: `      ...(Buffer.byteLength(json) <= MAX_INLINE_MANIFEST_BYTES
        ? {
            [MANIFEST_KEY]: json,
            ...(manifest.idempotencyKey === undefined ? {} : { [KEYED_FLAG]: "1" }),
          }
        : {}),`,
      },
    ],
  },
  {
    slug: "scope-known-before-written",
    group: "scope faults",
    bug: "a scope's marker is remembered as written before its write lands: a put that fails there leaves the scope unlisted for good",
    dialect: "trailer",
    patches: [
      {
        file: "scopes.ts",
        find: `    await this.#bucket.createOnly(deadline, object, { commit: false });
    this.#known.set(key, scope);
  }`,
        replace: `    this.#known.set(key, scope);
    await this.#bucket.createOnly(deadline, object, { commit: false });
  }`,
      },
    ],
  },
  {
    slug: "marker-decides-deletion",
    group: "repeated faults",
    bug: "the deletion marker, written before the object's delete, decides who deleted (as before seals): a delete that failed after it leaves the version listed, and the next delete of it answers not_found",
    dialect: "trailer",
    patches: [
      {
        file: "tombstones.ts",
        find: `    await createOwned(this.#bucket, deadline, marker, requestId, true);
    await this.#bucket.delete(deadline, { key: object.key });
    const seal = this.#layout.deletionSeal(scope, key, version);
    return (await createOwned(this.#bucket, deadline, seal, requestId, true)) === "created";`,
        replace: `    const outcome = await createOwned(this.#bucket, deadline, marker, requestId, true);
    await this.#bucket.delete(deadline, { key: object.key });
    return outcome === "created";`,
      },
    ],
  },
];

/**
 * Copies that pass every law (issue 31, durable batch; conformance/README.md says why no
 * deterministic law reaches them). Not run against the kit: test/mutants.test.ts only builds
 * them, so that their patches follow the source until a law can catch them.
 */
export const SURVIVING_OBJECT_STORE_MUTANTS: readonly ObjectStoreMutantSpec[] = [
  {
    slug: "keyed-resume-skips-recheck",
    group: "idempotency",
    bug: "a keyed retry that publishes a bound, unpublished version does not look for a delete that ran meanwhile: the deleted version comes back",
    dialect: "trailer",
    patches: [
      {
        file: "publisher.ts",
        find: `    if (await deleted()) {
      await this.#bucket.delete(deadline, { key: objectKey });
      idempotentVersionDeleted(bound.version);
    }
    return meta;`,
        replace: "    return meta;",
      },
    ],
  },
];
