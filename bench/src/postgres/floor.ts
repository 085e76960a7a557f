import type pg from "pg";
import type { StoreUnderTest } from "../store.js";

/**
 * The least a store in PostgreSQL can do: one raw parameterised INSERT of the bytes per put
 * and one SELECT by primary key per get, on the same pool as the adapter, into a table whose
 * bytea column is stored like the adapter's blocks (out of line, uncompressed). Nothing is
 * allocated, hashed, verified or bounded.
 */
export class RawPostgresFloor implements StoreUnderTest {
  readonly #pool: pg.Pool;
  readonly #table: string;
  #latest = new Map<string, string>();

  private constructor(pool: pg.Pool, table: string) {
    this.#pool = pool;
    this.#table = table;
  }

  static async create(pool: pg.Pool, table = "ak_bench_floor"): Promise<RawPostgresFloor> {
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.query(
      `CREATE TABLE ${table} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL, data bytea NOT NULL)`,
    );
    await pool.query(`ALTER TABLE ${table} ALTER COLUMN data SET STORAGE EXTERNAL`);
    return new RawPostgresFloor(pool, table);
  }

  async put(name: string, bytes: Uint8Array) {
    const result = await this.#pool.query<{ id: string }>(
      `INSERT INTO ${this.#table} (name, data) VALUES ($1, $2) RETURNING id`,
      [name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    );
    const id = result.rows[0]?.id;
    if (id === undefined) throw new Error("floor insert returned no id");
    this.#latest.set(name, id);
    return id;
  }

  async getLatest(name: string) {
    const id = this.#latest.get(name);
    if (id === undefined) throw new Error(`floor lost artifact "${name}"`);
    const result = await this.#pool.query<{ data: Buffer }>(
      `SELECT data FROM ${this.#table} WHERE id = $1`,
      [id],
    );
    if (!result.rows[0]) throw new Error(`floor lost row ${id}`);
    return result.rows[0].data;
  }

  async listVersions(name: string) {
    const result = await this.#pool.query(
      `SELECT id FROM ${this.#table} WHERE name = $1 ORDER BY id LIMIT 100`,
      [name],
    );
    return result.rows;
  }

  async reset() {
    await this.#pool.query(`TRUNCATE ${this.#table}`);
    this.#latest = new Map();
  }

  async close() {
    await this.#pool.query(`DROP TABLE IF EXISTS ${this.#table}`);
  }
}
