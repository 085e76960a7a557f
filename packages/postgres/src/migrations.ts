// The store's schema, as versioned migrations. Each is a function of the quoted schema name
// and runs once, in order, inside migrate()'s transaction; a shipped migration is never
// edited, a change is a new one appended here.

export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: (schema: string) => string;
}

const tables = (s: string) => `
CREATE SEQUENCE ${s}.content_ids;

-- One row per (scope, name) ever written: the version high-water survives deletes.
CREATE TABLE ${s}.names (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope_key text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  high_water bigint NOT NULL DEFAULT 0,
  -- Whether a version is live. A put sets it to true, mostly unchanged, so the row update
  -- stays a heap-only tuple update that touches no index.
  live boolean NOT NULL DEFAULT false,
  UNIQUE (scope_key, name)
);
-- listNames walks this index from its cursor: O(page), in byte order (COLLATE "C", UTF8).
CREATE INDEX names_live ON ${s}.names (scope_key, name) WHERE live;

CREATE TABLE ${s}.versions (
  name_id bigint NOT NULL REFERENCES ${s}.names (id),
  version bigint NOT NULL,
  content_id bigint NOT NULL,
  mime_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  block_digests text[] NOT NULL,
  created_at bigint NOT NULL,
  -- JSON text exactly as validated (jsonb would reorder keys and change numbers).
  metadata text NOT NULL,
  idempotency_key text COLLATE "C",
  PRIMARY KEY (name_id, version)
);

-- The bytes, in blocks of the core's transfer block size, published or staged.
CREATE TABLE ${s}.blocks (
  content_id bigint NOT NULL,
  block_index integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (content_id, block_index)
);
-- Out of line and uncompressed: artifacts are often already compressed, and a ranged read
-- then costs only the blocks it touches.
ALTER TABLE ${s}.blocks ALTER COLUMN data SET STORAGE EXTERNAL;

-- Uploads in progress: their blocks are staged under content_id until publish claims the row.
CREATE TABLE ${s}.uploads (
  content_id bigint PRIMARY KEY,
  touched_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX uploads_touched ON ${s}.uploads (touched_at);

-- Kept after the version is deleted, like the high-water: a key is bound for good.
CREATE TABLE ${s}.idempotency_keys (
  name_id bigint NOT NULL REFERENCES ${s}.names (id),
  key text COLLATE "C" NOT NULL,
  version bigint NOT NULL,
  PRIMARY KEY (name_id, key)
);

-- Exact quotas: publish and delete change these rows under their row locks.
CREATE TABLE ${s}.scope_usage (
  scope_key text COLLATE "C" PRIMARY KEY,
  bytes bigint NOT NULL DEFAULT 0,
  artifacts bigint NOT NULL DEFAULT 0
);
CREATE TABLE ${s}.totals (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  bytes bigint NOT NULL DEFAULT 0,
  artifacts bigint NOT NULL DEFAULT 0
);
INSERT INTO ${s}.totals DEFAULT VALUES;
`;

// Every mutation is one statement calling one of these functions, so it is atomic without a
// client-side transaction and costs one round trip. Locks are always taken in the order
// name row, scope usage row, totals row, so publishers and deleters never deadlock. The
// deadline arrives as the milliseconds left: it bounds lock waits (lock_timeout) and is
// checked once more right before the statement commits (SQLSTATE AKT01).
const functions = (s: string) => `
CREATE FUNCTION ${s}.start_deadline(p_remaining_ms integer) RETURNS timestamptz
LANGUAGE plpgsql AS $fn$
BEGIN
  IF p_remaining_ms IS NULL THEN RETURN NULL; END IF;
  IF p_remaining_ms <= 0 THEN
    RAISE EXCEPTION 'the deadline passed' USING ERRCODE = 'AKT01';
  END IF;
  PERFORM set_config('lock_timeout', p_remaining_ms::text, true);
  RETURN statement_timestamp() + p_remaining_ms * interval '1 millisecond';
END
$fn$;

CREATE FUNCTION ${s}.check_deadline(p_deadline timestamptz) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  IF p_deadline IS NOT NULL AND clock_timestamp() >= p_deadline THEN
    RAISE EXCEPTION 'the deadline passed before commit' USING ERRCODE = 'AKT01';
  END IF;
END
$fn$;

-- Publishes staged content as the next version of (scope, name), or answers an idempotent
-- retry: outcome 'published', 'replayed' (the bound version's record) or 'deleted' (the
-- bound version is gone). A retry writes nothing and drops the content it was given.
CREATE FUNCTION ${s}.publish_content(
  p_scope_key text, p_name text, p_content_id bigint, p_mime_type text, p_size bigint,
  p_sha256 text, p_block_digests text[], p_metadata text, p_key text,
  p_max_scope_bytes bigint, p_max_total_bytes bigint,
  p_max_scope_artifacts bigint, p_max_total_artifacts bigint, p_deadline timestamptz)
RETURNS TABLE (outcome text, version bigint, mime_type text, size bigint, sha256 text,
  created_at bigint, metadata text)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_name_id bigint;
  v_bound bigint;
  v_version bigint;
  v_bytes bigint;
  v_artifacts bigint;
  v_created_at bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
BEGIN
  -- Locks (or creates) the name row: every publisher of this name queues here.
  LOOP
    SELECT n.id INTO v_name_id FROM ${s}.names n
      WHERE n.scope_key = p_scope_key AND n.name = p_name FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO ${s}.names (scope_key, name) VALUES (p_scope_key, p_name)
      ON CONFLICT (scope_key, name) DO NOTHING RETURNING id INTO v_name_id;
    EXIT WHEN v_name_id IS NOT NULL;
  END LOOP;
  IF p_key IS NOT NULL THEN
    SELECT k.version INTO v_bound FROM ${s}.idempotency_keys k
      WHERE k.name_id = v_name_id AND k.key = p_key;
    IF FOUND THEN
      DELETE FROM ${s}.blocks b WHERE b.content_id = p_content_id;
      DELETE FROM ${s}.uploads u WHERE u.content_id = p_content_id;
      RETURN QUERY SELECT 'replayed', v.version, v.mime_type, v.size, v.sha256, v.created_at,
        v.metadata FROM ${s}.versions v WHERE v.name_id = v_name_id AND v.version = v_bound;
      IF NOT FOUND THEN
        RETURN QUERY SELECT 'deleted', v_bound, NULL::text, NULL::bigint, NULL::text,
          NULL::bigint, NULL::text;
      END IF;
      RETURN;
    END IF;
  END IF;
  INSERT INTO ${s}.scope_usage AS u (scope_key, bytes, artifacts) VALUES (p_scope_key, p_size, 1)
    ON CONFLICT (scope_key) DO UPDATE SET bytes = u.bytes + p_size, artifacts = u.artifacts + 1
    RETURNING u.bytes, u.artifacts INTO v_bytes, v_artifacts;
  IF v_bytes > p_max_scope_bytes THEN
    RAISE EXCEPTION 'maxScopeBytes' USING ERRCODE = 'AKQ01';
  END IF;
  IF v_artifacts > p_max_scope_artifacts THEN
    RAISE EXCEPTION 'maxScopeArtifacts' USING ERRCODE = 'AKQ01';
  END IF;
  UPDATE ${s}.totals t SET bytes = t.bytes + p_size, artifacts = t.artifacts + 1
    RETURNING t.bytes, t.artifacts INTO v_bytes, v_artifacts;
  IF v_bytes > p_max_total_bytes THEN
    RAISE EXCEPTION 'maxTotalBytes' USING ERRCODE = 'AKQ01';
  END IF;
  IF v_artifacts > p_max_total_artifacts THEN
    RAISE EXCEPTION 'maxTotalArtifacts' USING ERRCODE = 'AKQ01';
  END IF;
  UPDATE ${s}.names n SET high_water = n.high_water + 1, live = true
    WHERE n.id = v_name_id RETURNING n.high_water INTO v_version;
  INSERT INTO ${s}.versions (name_id, version, content_id, mime_type, size, sha256,
      block_digests, created_at, metadata, idempotency_key)
    VALUES (v_name_id, v_version, p_content_id, p_mime_type, p_size, p_sha256,
      p_block_digests, v_created_at, p_metadata, p_key);
  IF p_key IS NOT NULL THEN
    INSERT INTO ${s}.idempotency_keys (name_id, key, version) VALUES (v_name_id, p_key, v_version);
  END IF;
  PERFORM ${s}.check_deadline(p_deadline);
  RETURN QUERY SELECT 'published', v_version, p_mime_type, p_size, p_sha256, v_created_at,
    p_metadata;
END
$fn$;

-- A whole put in one statement: the data arrives as one bytea and is cut into blocks here.
CREATE FUNCTION ${s}.put_artifact(
  p_scope_key text, p_name text, p_data bytea, p_block_bytes integer, p_mime_type text,
  p_sha256 text, p_block_digests text[], p_metadata text, p_key text,
  p_max_scope_bytes bigint, p_max_total_bytes bigint,
  p_max_scope_artifacts bigint, p_max_total_artifacts bigint, p_remaining_ms integer)
RETURNS TABLE (outcome text, version bigint, mime_type text, size bigint, sha256 text,
  created_at bigint, metadata text)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_deadline timestamptz := ${s}.start_deadline(p_remaining_ms);
  v_content_id bigint := nextval('${s}.content_ids');
  v_size bigint := length(p_data);
BEGIN
  INSERT INTO ${s}.blocks (content_id, block_index, data)
    SELECT v_content_id, i, substring(p_data FROM i * p_block_bytes + 1 FOR p_block_bytes)
    FROM generate_series(0, ((v_size + p_block_bytes - 1) / p_block_bytes)::integer - 1) AS i;
  RETURN QUERY SELECT * FROM ${s}.publish_content(p_scope_key, p_name, v_content_id,
    p_mime_type, v_size, p_sha256, p_block_digests, p_metadata, p_key, p_max_scope_bytes,
    p_max_total_bytes, p_max_scope_artifacts, p_max_total_artifacts, v_deadline);
END
$fn$;

-- Publishes a staged upload: claims its row first, so repair and publish never both win.
CREATE FUNCTION ${s}.publish_upload(
  p_content_id bigint, p_scope_key text, p_name text, p_size bigint, p_mime_type text,
  p_sha256 text, p_block_digests text[], p_metadata text, p_key text,
  p_max_scope_bytes bigint, p_max_total_bytes bigint,
  p_max_scope_artifacts bigint, p_max_total_artifacts bigint, p_remaining_ms integer)
RETURNS TABLE (outcome text, version bigint, mime_type text, size bigint, sha256 text,
  created_at bigint, metadata text)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_deadline timestamptz := ${s}.start_deadline(p_remaining_ms);
BEGIN
  DELETE FROM ${s}.uploads u WHERE u.content_id = p_content_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the upload''s staged blocks were removed by repair' USING ERRCODE = 'AKU01';
  END IF;
  RETURN QUERY SELECT * FROM ${s}.publish_content(p_scope_key, p_name, p_content_id,
    p_mime_type, p_size, p_sha256, p_block_digests, p_metadata, p_key, p_max_scope_bytes,
    p_max_total_bytes, p_max_scope_artifacts, p_max_total_artifacts, v_deadline);
END
$fn$;

-- Deletes one version, the latest or all live versions of a name; returns how many.
CREATE FUNCTION ${s}.delete_artifact(
  p_scope_key text, p_name text, p_selector text, p_version bigint, p_remaining_ms integer)
RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
  v_deadline timestamptz := ${s}.start_deadline(p_remaining_ms);
  v_name_id bigint;
  v_count bigint;
  v_bytes bigint;
  v_contents bigint[];
BEGIN
  SELECT n.id INTO v_name_id FROM ${s}.names n
    WHERE n.scope_key = p_scope_key AND n.name = p_name FOR UPDATE;
  IF NOT FOUND THEN RETURN 0; END IF;
  WITH gone AS (
    DELETE FROM ${s}.versions v WHERE v.name_id = v_name_id AND (
      p_selector = 'all'
      OR (p_selector = 'version' AND v.version = p_version)
      OR (p_selector = 'latest' AND v.version =
        (SELECT max(w.version) FROM ${s}.versions w WHERE w.name_id = v_name_id)))
    RETURNING v.size, v.content_id)
  SELECT count(*), coalesce(sum(gone.size), 0), array_agg(gone.content_id)
    INTO v_count, v_bytes, v_contents FROM gone;
  IF v_count = 0 THEN RETURN 0; END IF;
  DELETE FROM ${s}.blocks b WHERE b.content_id = ANY (v_contents);
  UPDATE ${s}.names n SET live = EXISTS (SELECT 1 FROM ${s}.versions v WHERE v.name_id = v_name_id)
    WHERE n.id = v_name_id;
  UPDATE ${s}.scope_usage u SET bytes = u.bytes - v_bytes, artifacts = u.artifacts - v_count
    WHERE u.scope_key = p_scope_key;
  UPDATE ${s}.totals t SET bytes = t.bytes - v_bytes, artifacts = t.artifacts - v_count;
  PERFORM ${s}.check_deadline(v_deadline);
  RETURN v_count;
END
$fn$;
`;

// The effect journal of @artifact-kit/effects (src/effects.ts): one row per effect, the
// record as JSON text and, beside it, the columns a claim or a prune selects on.
const effectJournal = (s: string) => `
CREATE TABLE ${s}.effects (
  effect_id text COLLATE "C" PRIMARY KEY,
  -- Bumped by every change: the compare-and-swap a writer publishes against.
  revision bigint NOT NULL,
  phase text NOT NULL,
  lease_expires_at bigint NOT NULL,
  attempts integer NOT NULL,
  updated_at bigint NOT NULL,
  record text NOT NULL
);
CREATE INDEX effects_orphans ON ${s}.effects (lease_expires_at)
  WHERE phase IN ('intended', 'applied');
CREATE INDEX effects_settled ON ${s}.effects (updated_at)
  WHERE phase NOT IN ('intended', 'applied');
`;

// Scope discovery (listScopes): the real scope behind each scope_key digest, written before
// the scope's first publication and never removed; a scope is live while its scope_usage row
// counts artifacts. Scopes written before this migration are listed once written again.
const scopeIds = (s: string) => `
CREATE TABLE ${s}.scopes (
  scope_key text COLLATE "C" PRIMARY KEY,
  app text COLLATE "C" NOT NULL,
  user_id text COLLATE "C",
  session text COLLATE "C",
  CHECK (session IS NULL OR user_id IS NOT NULL)
);
-- Each level's listing walks this index in byte order (COLLATE "C", UTF8) from its cursor.
CREATE INDEX scopes_ids ON ${s}.scopes (app, user_id, session);
`;

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    description: "names, versions, blocks, uploads, idempotency keys, usage; publish and delete",
    sql: (schema: string) => tables(schema) + functions(schema),
  },
  {
    version: 2,
    description: "effect journal: effects with their leases, for @artifact-kit/effects",
    sql: effectJournal,
  },
  {
    version: 3,
    description: "scope ids behind scope keys, for listScopes",
    sql: scopeIds,
  },
]);

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;
