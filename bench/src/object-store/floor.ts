import type { StoreUnderTest } from "../store.js";
import type { BenchBucket } from "./bucket.js";

/**
 * The least a store on an object store can do: one raw write per put, one read of a version it
 * already knows per get, one listing request per list. Driven one call at a time, so versions
 * need no allocation and nothing is checked.
 */
export class RawFloor implements StoreUnderTest {
  readonly #bucket: BenchBucket;
  #latest = new Map<string, number>();

  constructor(bucket: BenchBucket) {
    this.#bucket = bucket;
  }

  async put(name: string, bytes: Uint8Array) {
    const version = (this.#latest.get(name) ?? 0) + 1;
    await this.#bucket.put(`${name}/${version}`, bytes);
    this.#latest.set(name, version);
    return version;
  }

  async getLatest(name: string) {
    const latest = this.#latest.get(name);
    if (latest === undefined) throw new Error(`floor lost artifact "${name}"`);
    return this.#bucket.get(`${name}/${latest}`);
  }

  async listVersions(name: string) {
    return this.#bucket.list(`${name}/`);
  }

  async reset() {
    await this.#bucket.empty();
    this.#latest = new Map();
  }

  async close() {
    await this.#bucket.close?.();
  }
}
