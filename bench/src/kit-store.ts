import type { ArtifactService, Scope } from "@artifact-kit/core";
import type { StoreUnderTest } from "./store.js";

/** Our page size when listing versions: the issue compares one page of 100 with the peer. */
export const VERSION_PAGE = 100;

export const BENCH_SCOPE: Scope = Object.freeze({
  kind: "session",
  app: "bench",
  user: "user-1",
  session: "session-1",
});

/** Any artifact-kit adapter, called exactly as an application would call it. */
export class KitStore implements StoreUnderTest {
  readonly #open: () => Promise<ArtifactService>;
  #service: Promise<ArtifactService>;

  /** `open` returns a fresh, empty service each time it is called. */
  constructor(open: () => Promise<ArtifactService>) {
    this.#open = open;
    this.#service = open();
  }

  async put(name: string, bytes: Uint8Array) {
    return (await this.#service).put(BENCH_SCOPE, name, bytes);
  }

  async getLatest(name: string) {
    return (await this.#service).get(BENCH_SCOPE, name);
  }

  async listVersions(name: string) {
    return (await this.#service).listVersions(BENCH_SCOPE, name, { limit: VERSION_PAGE });
  }

  async reset() {
    await this.close();
    this.#service = this.#open();
    // Opened here, untimed: the next put must not pay for opening (or emptying) a store.
    await this.#service;
  }

  async close() {
    await (await this.#service).close();
  }
}
