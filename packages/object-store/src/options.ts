import type { ObjectBucket } from "./bucket.js";
import type { ObjectStoreDialect } from "./dialect.js";

/** What `ObjectStoreBackend` runs on: the adapter's bucket, format and bounds. */
export interface ObjectStoreOptions {
  readonly bucket: ObjectBucket;
  /** Key prefix shared by every instance of one store: empty, or ending in "/". */
  readonly prefix: string;
  readonly dialect: ObjectStoreDialect;
  /** How long a put without a timeout of its own waits out contention (then `overloaded`). */
  readonly maxContentionWaitMs: number;
  /** Most versions the legacy `list` returns before `result_limit_exceeded`. */
  readonly legacyListLimit: number;
  /**
   * With "chunks" version records: how old an allocation that was neither published nor
   * deleted must be before its put is taken for dead and its range's chunk is written
   * (default 15 minutes). A put that publishes later still shows: it costs a read per page.
   */
  readonly recordChunkSettleMs?: number;
}
