/**
 * The operations every compared store offers, each through its own API. A store is the
 * subject of one column of a table; the workloads in `workloads.ts` drive any of them.
 */
export interface StoreUnderTest {
  put(name: string, bytes: Uint8Array): Promise<unknown>;
  getLatest(name: string): Promise<unknown>;
  /** One call listing the versions of `name`, as this store's API offers it. */
  listVersions(name: string): Promise<unknown>;
  /** Untimed: forget everything stored, so long runs stay within memory, disk and quotas. */
  reset(): Promise<void>;
  /** Untimed: release what the store holds (services, temporary directories). */
  close(): Promise<void>;
}
