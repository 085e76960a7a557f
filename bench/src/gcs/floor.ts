import type { Bucket } from "@google-cloud/storage";
import type { StoreUnderTest } from "../store.js";
import { emptyBucket } from "./bucket.js";

/**
 * The least a store on GCS can do: one raw `file.save` (a single-request upload) per put,
 * one `file.download` of a version it already knows per get, one listing per list. Driven
 * one call at a time, so versions need no allocation and nothing is checked.
 */
export class RawGcsFloor implements StoreUnderTest {
  readonly #bucket: Bucket;
  #latest = new Map<string, number>();

  constructor(bucket: Bucket) {
    this.#bucket = bucket;
  }

  async put(name: string, bytes: Uint8Array) {
    const version = (this.#latest.get(name) ?? 0) + 1;
    await this.#bucket.file(`${name}/${version}`).save(asBuffer(bytes), { resumable: false });
    this.#latest.set(name, version);
    return version;
  }

  async getLatest(name: string) {
    const latest = this.#latest.get(name);
    if (latest === undefined) throw new Error(`floor lost artifact "${name}"`);
    const [data] = await this.#bucket.file(`${name}/${latest}`).download();
    return data;
  }

  async listVersions(name: string) {
    const [files] = await this.#bucket.getFiles({ prefix: `${name}/` });
    return files;
  }

  async reset() {
    await emptyBucket(this.#bucket);
    this.#latest = new Map();
  }

  async close() {}
}

/** The same memory seen as a Buffer, without a copy. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
