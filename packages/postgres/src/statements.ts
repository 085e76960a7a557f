import { scopeDigest, sha256Hex } from "@artifact-kit/core";
import { namePageStart, type ParsedListNames, prefixUpperBound } from "@artifact-kit/core/adapter";
import { VERSION_COLUMNS } from "./rows.js";

/** A parameterised statement, prepared once per connection under its name. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/**
 * Every statement the service sends, for one quoted schema name. Each is a named prepared
 * statement, so the server parses and plans it once per connection instead of once per call;
 * the name carries a digest of the schema and text, so services of several schemas (or
 * package versions) can share one pool.
 */
export function statements(s: string): Record<keyof ReturnType<typeof texts>, Statement> {
  const all = texts(s);
  return Object.fromEntries(
    Object.entries(all).map(([key, text]) => [
      key,
      Object.freeze({ name: `ak_${key}_${sha256Hex(text).slice(0, 16)}`, text }),
    ]),
  ) as Record<keyof typeof all, Statement>;
}

function texts(s: string) {
  const version = `FROM ${s}.names n JOIN ${s}.versions v ON v.name_id = n.id
    WHERE n.scope_key = $1 AND n.name = $2`;
  const latest = `v.version = (SELECT max(w.version) FROM ${s}.versions w WHERE w.name_id = n.id)`;
  const withData = (which: string) =>
    `SELECT ${VERSION_COLUMNS}, b.block_index, b.data
     FROM (SELECT ${VERSION_COLUMNS}, v.content_id ${version} AND ${which}) v
     LEFT JOIN ${s}.blocks b ON b.content_id = v.content_id
     ORDER BY b.block_index`;
  const published = "outcome, version, mime_type, size, sha256, created_at, metadata";
  const names = (range: string) =>
    `SELECT n.name FROM ${s}.names n WHERE n.scope_key = $1 AND n.live ${range}
      ORDER BY n.name LIMIT $2`;
  const bounds = "$10, $11, $12, $13, $14";
  // The distinct ids of one level among live scopes ($1: the limit), in byte order.
  const scopeIds = (column: string, where: string) =>
    `SELECT DISTINCT s.${column} AS id FROM ${s}.scopes s
      JOIN ${s}.scope_usage u ON u.scope_key = s.scope_key
      WHERE u.artifacts > 0 AND ${where} ORDER BY id LIMIT $1`;
  const users = "s.app = $2 AND s.user_id IS NOT NULL";
  const sessions = "s.app = $2 AND s.user_id = $3 AND s.session IS NOT NULL";
  return {
    put: `SELECT ${published} FROM ${s}.put_artifact($1, $2, $3, $4, $5, $6, $7, $8, $9, ${bounds})`,
    publishUpload: `SELECT ${published}
      FROM ${s}.publish_upload($1, $2, $3, $4, $5, $6, $7, $8, $9, ${bounds})`,
    delete: `SELECT ${s}.delete_artifact($1, $2, $3, $4, $5) AS deleted`,
    getLatest: withData(latest),
    getVersion: withData("v.version = $3"),
    headLatest: `SELECT ${VERSION_COLUMNS}, v.content_id, v.block_digests ${version} AND ${latest}`,
    headVersion: `SELECT ${VERSION_COLUMNS}, v.content_id, v.block_digests ${version}
      AND v.version = $3`,
    block: `SELECT b.data FROM ${s}.blocks b WHERE b.content_id = $1 AND b.block_index = $2`,
    versionLive: `SELECT 1 FROM ${s}.names n JOIN ${s}.versions v ON v.name_id = n.id
      WHERE n.scope_key = $1 AND n.name = $2 AND v.version = $3`,
    // A page starts after the cursor or at a prefix, and a prefix's run ends below its upper
    // bound: each bound is an index condition, so the scan reads only the page.
    listNamesFirst: names(""),
    listNamesAfter: names("AND n.name > $3"),
    listNamesFrom: names("AND n.name >= $3"),
    listNamesFromBelow: names("AND n.name >= $3 AND n.name < $4"),
    listNamesAfterBelow: names("AND n.name > $3 AND n.name < $4"),
    recordScope: `INSERT INTO ${s}.scopes (scope_key, app, user_id, session)
      VALUES ($1, $2, $3, $4) ON CONFLICT (scope_key) DO NOTHING`,
    listAppsFirst: scopeIds("app", "true"),
    listAppsAfter: scopeIds("app", "s.app > $2"),
    listUsersFirst: scopeIds("user_id", users),
    listUsersAfter: scopeIds("user_id", `${users} AND s.user_id > $3`),
    listSessionsFirst: scopeIds("session", sessions),
    listSessionsAfter: scopeIds("session", `${sessions} AND s.session > $4`),
    listVersions: `SELECT ${VERSION_COLUMNS} ${version} AND v.version > $3
      ORDER BY v.version LIMIT $4`,
    list: `SELECT n.name, ${VERSION_COLUMNS} FROM ${s}.names n JOIN ${s}.versions v
      ON v.name_id = n.id WHERE n.scope_key = $1 AND n.live
      ORDER BY n.name, v.version LIMIT $2`,
    openUpload: `INSERT INTO ${s}.uploads (content_id) VALUES (nextval('${s}.content_ids'))
      RETURNING content_id`,
    // Staging a block also renews the upload's lease; a repaired upload stages nothing.
    stageBlock: `WITH touched AS (UPDATE ${s}.uploads u SET touched_at = clock_timestamp()
        WHERE u.content_id = $1 RETURNING u.content_id)
      INSERT INTO ${s}.blocks (content_id, block_index, data)
      SELECT touched.content_id, $2, $3 FROM touched RETURNING block_index`,
    // Removes the blocks only with the upload's own row. A publish that committed although
    // its reply was lost has taken that row, and its version owns the blocks now; a publish
    // still running holds the row's lock, so this waits for it and then sees which won.
    discardUpload: `WITH gone AS (DELETE FROM ${s}.uploads u WHERE u.content_id = $1
        RETURNING u.content_id)
      DELETE FROM ${s}.blocks b WHERE b.content_id IN (SELECT content_id FROM gone)`,
    // One batch of uploads whose lease ran out, removed with their staged blocks.
    repairBatch: `WITH expired AS (
        DELETE FROM ${s}.uploads u WHERE u.content_id IN (
          SELECT x.content_id FROM ${s}.uploads x
          WHERE x.touched_at < clock_timestamp() - $1 * interval '1 millisecond'
          ORDER BY x.touched_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING u.content_id),
      gone AS (DELETE FROM ${s}.blocks b WHERE b.content_id IN (SELECT content_id FROM expired)
        RETURNING 1)
      SELECT (SELECT count(*) FROM expired) AS uploads, (SELECT count(*) FROM gone) AS blocks`,
  } as const;
}

export type Statements = ReturnType<typeof statements>;

/**
 * The statement and values of one page of names: after the cursor or from the prefix, and
 * below the prefix's upper bound, so that both ends are index conditions and the scan reads
 * only the page.
 */
export function namePageQuery(
  sql: Statements,
  request: ParsedListNames,
): { statement: Statement; values: unknown[] } {
  const start = namePageStart(request);
  const upper = request.prefix === undefined ? undefined : prefixUpperBound(request.prefix);
  const statement =
    start === undefined
      ? sql.listNamesFirst
      : upper === undefined
        ? start.inclusive
          ? sql.listNamesFrom
          : sql.listNamesAfter
        : start.inclusive
          ? sql.listNamesFromBelow
          : sql.listNamesAfterBelow;
  const values = [
    scopeDigest(request.scope),
    request.limit + 1,
    ...(start === undefined ? [] : [start.from]),
    ...(start === undefined || upper === undefined ? [] : [upper]),
  ];
  return { statement, values };
}
