import cacache from "cacache";
import type { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";

/**
 * npm's content-addressed cache, the local store a Node user would pick: a put writes the
 * content under its SHA-512 and appends an index entry (no fsync anywhere: a power cut may
 * lose it); a get reads the index and verifies the content's integrity as it reads.
 */
export class CacacheStore implements StoreUnderTest {
  readonly #scratch: ScratchSpace;
  #dir: string;

  constructor(scratch: ScratchSpace) {
    this.#scratch = scratch;
    this.#dir = scratch.fresh("cacache");
  }

  put(name: string, bytes: Uint8Array) {
    return cacache.put(this.#dir, name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  }

  getLatest(name: string) {
    return cacache.get(this.#dir, name);
  }

  /** cacache keeps no versions: its index answers with the key's latest entry only. */
  listVersions(name: string) {
    return cacache.get.info(this.#dir, name);
  }

  async reset() {
    this.#dir = this.#scratch.fresh("cacache");
  }

  async close() {}
}
