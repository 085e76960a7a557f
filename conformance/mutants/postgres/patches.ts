import type { PatchedMutantSpec } from "../patched/build.js";

// Patched copies of the real postgres adapter (built by ../patched/build.ts): each replaces
// exact source text in packages/postgres/src, its SQL functions (migrations.ts) included:
// every subject migrates a schema of its own, so the schema holds the mutant's functions.
// Each is a bug a hostile tester would try on a SQL backend, visible through the public API.

/** An ICU collation every PostgreSQL build with ICU has: what a database created with an
 * English locale compares text by, where the adapter did not ask for COLLATE "C". */
const LOCALE = '"en-x-icu"';

const NAME_LOOKUP_LOCKED = `    SELECT n.id INTO v_name_id FROM \${s}.names n
      WHERE n.scope_key = p_scope_key AND n.name = p_name FOR UPDATE;
    EXIT WHEN FOUND;`;

const NEXT_VERSION = `  UPDATE \${s}.names n SET high_water = n.high_water + 1, live = true
    WHERE n.id = v_name_id RETURNING n.high_water INTO v_version;`;

export const POSTGRES_MUTANTS: readonly PatchedMutantSpec[] = [
  {
    slug: "version-from-live-max",
    bug: "allocates the next version as the largest live one plus one: a deleted latest's number is reused",
    patches: [
      {
        file: "migrations.ts",
        find: NEXT_VERSION,
        replace: `  SELECT coalesce(max(w.version), 0) + 1 INTO v_version FROM \${s}.versions w
    WHERE w.name_id = v_name_id;
  UPDATE \${s}.names n SET high_water = v_version, live = true WHERE n.id = v_name_id;`,
      },
    ],
  },
  {
    slug: "version-read-without-lock",
    bug: "reads the high-water without the name row's lock and writes it back plus one: concurrent puts take one number (the loser fails)",
    patches: [
      {
        file: "migrations.ts",
        find: NAME_LOOKUP_LOCKED,
        replace: `    SELECT n.id, n.high_water + 1 INTO v_name_id, v_version FROM \${s}.names n
      WHERE n.scope_key = p_scope_key AND n.name = p_name;
    EXIT WHEN FOUND;`,
      },
      {
        file: "migrations.ts",
        find: "ON CONFLICT (scope_key, name) DO NOTHING RETURNING id INTO v_name_id;",
        replace:
          "ON CONFLICT (scope_key, name) DO NOTHING RETURNING id, high_water + 1 INTO v_name_id, v_version;",
      },
      {
        file: "migrations.ts",
        find: NEXT_VERSION,
        replace: `  UPDATE \${s}.names n SET high_water = v_version, live = true WHERE n.id = v_name_id;`,
      },
    ],
  },
  {
    slug: "keyed-retry-unlocked",
    bug: "looks a key up without the name row's lock and ignores a key bound meanwhile: racing keyed puts publish twice",
    patches: [
      {
        file: "migrations.ts",
        find: NAME_LOOKUP_LOCKED,
        replace: NAME_LOOKUP_LOCKED.replace(" FOR UPDATE;", ";"),
      },
      {
        file: "migrations.ts",
        find: "VALUES (v_name_id, p_key, v_version);",
        replace: "VALUES (v_name_id, p_key, v_version) ON CONFLICT DO NOTHING;",
      },
    ],
  },
  {
    slug: "delete-all-resets-high-water",
    bug: 'delete("all") resets the name\'s high-water: versions are reused',
    patches: [
      {
        file: "migrations.ts",
        find: `UPDATE \${s}.names n SET live = EXISTS`,
        replace: `UPDATE \${s}.names n SET high_water = CASE WHEN p_selector = 'all' THEN 0 ELSE n.high_water END, live = EXISTS`,
      },
    ],
  },
  {
    slug: "latest-is-high-water",
    bug: "reads latest as the high-water version, deleted or not",
    patches: [
      {
        file: "statements.ts",
        find: `const latest = \`v.version = (SELECT max(w.version) FROM \${s}.versions w WHERE w.name_id = n.id)\`;`,
        replace: 'const latest = "v.version = n.high_water";',
      },
    ],
  },
  {
    slug: "names-in-locale-order",
    bug: 'stores names in the database\'s collation (an English locale), not COLLATE "C": listNames is not in UTF-8 byte order',
    patches: [
      {
        file: "migrations.ts",
        find: 'name text COLLATE "C" NOT NULL,',
        replace: `name text COLLATE ${LOCALE} NOT NULL,`,
      },
    ],
  },
  {
    slug: "name-cursor-in-locale",
    bug: "orders a page of names by byte but compares the cursor in the locale's collation",
    patches: [
      {
        file: "statements.ts",
        find: 'listNamesAfter: names("AND n.name > $3"),',
        replace: `listNamesAfter: names('AND n.name > $3 COLLATE ${LOCALE}'),`,
      },
    ],
  },
  {
    slug: "scope-cursor-in-locale",
    bug: "compares the app cursor of listScopes in the locale's collation",
    patches: [
      {
        file: "statements.ts",
        find: 'listAppsAfter: scopeIds("app", "s.app > $2"),',
        replace: `listAppsAfter: scopeIds("app", 's.app > $2 COLLATE ${LOCALE}'),`,
      },
    ],
  },
  {
    slug: "name-page-one-over",
    bug: "a page of names holds the extra row fetched to see whether another page follows",
    patches: [
      {
        file: "store.ts",
        find: "const items = rows.slice(0, request.limit).map((row) => row.name);",
        replace: "const items = rows.map((row) => row.name);",
      },
    ],
  },
  {
    slug: "legacy-list-truncates",
    bug: "the legacy list fetches exactly legacyListLimit rows, so it never sees it is over and truncates",
    patches: [
      {
        file: "store.ts",
        find: "[scopeDigest(request.scope), limit + 1],",
        replace: "[scopeDigest(request.scope), limit],",
      },
    ],
  },
  {
    slug: "scope-quota-read-unlocked",
    bug: "checks maxScopeBytes and maxScopeArtifacts against usage read without its row lock, then adds: racers on other names pass the bound together",
    patches: [
      {
        file: "migrations.ts",
        find: `  INSERT INTO \${s}.scope_usage AS u (scope_key, bytes, artifacts) VALUES (p_scope_key, p_size, 1)
    ON CONFLICT (scope_key) DO UPDATE SET bytes = u.bytes + p_size, artifacts = u.artifacts + 1
    RETURNING u.bytes, u.artifacts INTO v_bytes, v_artifacts;`,
        replace: `  SELECT coalesce(max(u.bytes), 0) + p_size, coalesce(max(u.artifacts), 0) + 1
    INTO v_bytes, v_artifacts FROM \${s}.scope_usage u WHERE u.scope_key = p_scope_key;
  INSERT INTO \${s}.scope_usage AS u (scope_key, bytes, artifacts) VALUES (p_scope_key, p_size, 1)
    ON CONFLICT (scope_key) DO UPDATE SET bytes = u.bytes + p_size, artifacts = u.artifacts + 1;`,
      },
    ],
  },
  {
    slug: "delete-counts-one",
    bug: "a delete takes one artifact off the scope's count however many versions it removed",
    patches: [
      {
        file: "migrations.ts",
        find: "artifacts = u.artifacts - v_count",
        replace: "artifacts = u.artifacts - 1",
      },
    ],
  },
  {
    slug: "metadata-jsonb",
    bug: "stores metadata as jsonb: NUL (\\u0000) in a key or string is refused",
    patches: [
      {
        file: "migrations.ts",
        find: "  metadata text NOT NULL,",
        replace: "  metadata jsonb NOT NULL,",
      },
      {
        file: "migrations.ts",
        find: "p_block_digests, v_created_at, p_metadata, p_key);",
        replace: "p_block_digests, v_created_at, p_metadata::jsonb, p_key);",
      },
      {
        file: "migrations.ts",
        find: `        v.metadata FROM \${s}.versions v`,
        replace: `        v.metadata::text FROM \${s}.versions v`,
      },
      {
        file: "rows.ts",
        find: "v.created_at, v.metadata, v.idempotency_key",
        replace: "v.created_at, v.metadata::text AS metadata, v.idempotency_key",
      },
    ],
  },
  {
    slug: "scope-ids-trimmed",
    bug: "records a scope's app id trimmed: listScopes names an app that holds nothing",
    patches: [
      {
        file: "statements.ts",
        find: "VALUES ($1, $2, $3, $4) ON CONFLICT (scope_key) DO NOTHING",
        replace: "VALUES ($1, btrim($2), $3, $4) ON CONFLICT (scope_key) DO NOTHING",
      },
    ],
  },
  {
    slug: "users-of-every-app",
    bug: "listScopes of an app's users lists the users of every app",
    patches: [
      {
        file: "statements.ts",
        find: 'const users = "s.app = $2 AND s.user_id IS NOT NULL";',
        replace: 'const users = "$2::text IS NOT NULL AND s.user_id IS NOT NULL";',
      },
    ],
  },
  {
    slug: "idempotency-keys-fold-case",
    bug: "matches idempotency keys case-insensitively",
    patches: [
      {
        file: "migrations.ts",
        find: "AND k.key = p_key;",
        replace: "AND lower(k.key) = lower(p_key);",
      },
    ],
  },
  {
    slug: "created-at-on-read",
    bug: "reads createdAt as the time of the read",
    patches: [
      {
        file: "rows.ts",
        find: "v.sha256, v.created_at, v.metadata",
        replace:
          "v.sha256, (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS created_at, v.metadata",
      },
    ],
  },
  {
    slug: "get-skips-digest",
    bug: "a whole read checks the size but not the SHA-256 of the stored bytes",
    patches: [
      {
        file: "rows.ts",
        find: "if (sha256Hex(data) !== meta.sha256) {",
        replace: 'if (sha256Hex(data) === "") {',
      },
    ],
  },
  {
    slug: "download-deleted-meanwhile-is-corrupt",
    bug: "a download whose version is deleted while it reads fails corrupt_artifact, not not_found",
    patches: [
      { file: "store.ts", find: "if (live.length === 0) {", replace: "if (live.length < 0) {" },
    ],
  },
  {
    slug: "repair-ignores-lease",
    bug: "repair() removes every upload in progress, whatever its lease",
    patches: [
      {
        file: "statements.ts",
        find: "WHERE x.touched_at < clock_timestamp() - $1 * interval '1 millisecond'",
        replace: "WHERE $1::bigint >= 0",
      },
    ],
  },
  {
    slug: "migrate-reapplies-last",
    bug: "migrate() applies the schema's last migration again: opening with migrate on a current schema fails",
    patches: [
      {
        file: "migrate.ts",
        find: "MIGRATIONS.filter((candidate) => candidate.version > from)",
        replace: "MIGRATIONS.filter((candidate) => candidate.version >= from)",
      },
    ],
  },
  {
    slug: "delete-latest-uncorrelated",
    group: "durability",
    bug: 'delete("latest") takes the largest version number of any name in the schema, not of this name: a name whose latest is lower deletes nothing',
    patches: [
      {
        file: "migrations.ts",
        find: `(SELECT max(w.version) FROM \${s}.versions w WHERE w.name_id = v_name_id)))`,
        replace: `(SELECT max(w.version) FROM \${s}.versions w)))`,
      },
    ],
  },
  {
    slug: "live-cleared-by-delete-all-only",
    group: "durability",
    bug: 'only delete("all") clears a name\'s live flag: a name whose last version was deleted by number or as latest stays listed',
    patches: [
      {
        file: "migrations.ts",
        find: `UPDATE \${s}.names n SET live = EXISTS (SELECT 1 FROM \${s}.versions v WHERE v.name_id = v_name_id)`,
        replace: `UPDATE \${s}.names n SET live = (p_selector <> 'all')`,
      },
    ],
  },
  {
    slug: "replay-answers-latest",
    group: "idempotency",
    bug: "a keyed retry answers with the name's latest version's record, not the version its key is bound to",
    patches: [
      {
        file: "migrations.ts",
        find: `v.metadata FROM \${s}.versions v WHERE v.name_id = v_name_id AND v.version = v_bound;`,
        replace: `v.metadata FROM \${s}.versions v WHERE v.name_id = v_name_id ORDER BY v.version DESC LIMIT 1;`,
      },
    ],
  },
];
