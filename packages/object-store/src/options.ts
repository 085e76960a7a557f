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
}
