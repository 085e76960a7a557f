export type {
  ByteWindow,
  CreateOutcome,
  DeleteTarget,
  ListPage,
  ListRequest,
  NewObject,
  ObjectBucket,
  ObjectBytes,
  ObjectInfo,
  StagedTarget,
  StagingUpload,
  WriteOptions,
} from "./bucket.js";
export {
  guardedStream,
  looksLike,
  MAX_PREFIX_BYTES,
  OBJECT_STORE_DEFAULTS,
  type ObjectStoreBounds,
  objectSizeOf,
  objectStoreCapabilities,
  requestFailure,
  resolveOptions,
  resolvePrefix,
} from "./config.js";
export type { ObjectStoreDialect } from "./dialect.js";
export { concatBytes, joinBytes } from "./format.js";
export { ObjectLayout } from "./layout.js";
export type { ObjectStoreOptions } from "./options.js";
export { type FlushPart, PartBuffer } from "./part-buffer.js";
export type { RepairOptions, RepairReport } from "./repair.js";
export { REQUEST_ID_KEY } from "./request-ids.js";
export { BucketRequests, raceSignal, withSignal } from "./requests.js";
export { ObjectStoreService } from "./service.js";
export { ObjectStoreBackend } from "./store.js";
