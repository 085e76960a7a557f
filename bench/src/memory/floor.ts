import { sha256Hex } from "@artifact-kit/core";
import { VERSION_PAGE } from "../kit-store.js";
import type { StoreUnderTest } from "../store.js";

interface FloorVersion {
  readonly data: Uint8Array;
  readonly sha256: string;
}

/**
 * The least an in-memory store with our guarantees can do: a raw Map, the one-shot SHA-256 of
 * the bytes,
 * and a copy in and out (a store whose bytes the caller can mutate is not isolated). No
 * validation, quotas, records or deadlines: what our adapter adds is measured against this.
 */
export class MemoryFloor implements StoreUnderTest {
  #versions = new Map<string, FloorVersion[]>();

  async put(name: string, bytes: Uint8Array) {
    const data = new Uint8Array(bytes);
    // One-shot hashing, as the adapter does: no Hash object to build.
    const sha256 = sha256Hex(data);
    let versions = this.#versions.get(name);
    if (!versions) {
      versions = [];
      this.#versions.set(name, versions);
    }
    versions.push({ data, sha256 });
    return versions.length;
  }

  async getLatest(name: string) {
    const latest = this.#versions.get(name)?.at(-1);
    if (!latest) throw new Error(`floor lost artifact "${name}"`);
    return new Uint8Array(latest.data);
  }

  async listVersions(name: string) {
    return this.#versions.get(name)?.slice(0, VERSION_PAGE) ?? [];
  }

  async reset() {
    this.#versions = new Map();
  }

  async close() {}
}
