import { createHash } from "node:crypto";
import { open, readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";

/**
 * The least a durable store can do. Put: write and fsync a temporary file, rename it into
 * place, fsync the directory (a rename is durable only once its directory is). Get: read
 * the file and compute its SHA-256, without which no store can vouch for the bytes.
 * Driven one call at a time, so versions need no reservation.
 */
export class DurableFileFloor implements StoreUnderTest {
  readonly #scratch: ScratchSpace;
  #dir: string;
  /** Numbers the temporary files; each name's latest version is kept in `#latest`. */
  #writes = 0;
  #latest = new Map<string, number>();

  constructor(scratch: ScratchSpace) {
    this.#scratch = scratch;
    this.#dir = scratch.fresh("floor");
  }

  async put(name: string, bytes: Uint8Array) {
    this.#writes += 1;
    const version = (this.#latest.get(name) ?? 0) + 1;
    const staged = join(this.#dir, `.${this.#writes}.tmp`);
    const file = await open(staged, "wx");
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(staged, this.#pathOf(name, version));
    const dir = await open(this.#dir, "r");
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    this.#latest.set(name, version);
    return version;
  }

  async getLatest(name: string) {
    const latest = this.#latest.get(name);
    if (latest === undefined) throw new Error(`floor lost artifact "${name}"`);
    const data = await readFile(this.#pathOf(name, latest));
    return { data, sha256: createHash("sha256").update(data).digest("hex") };
  }

  async listVersions(name: string) {
    const prefix = `${name}.`;
    return (await readdir(this.#dir)).filter((entry) => entry.startsWith(prefix));
  }

  async reset() {
    this.#dir = this.#scratch.fresh("floor");
    this.#latest = new Map();
  }

  async close() {}

  #pathOf(name: string, version: number): string {
    return join(this.#dir, `${name}.${version}`);
  }
}
