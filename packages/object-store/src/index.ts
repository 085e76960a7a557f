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
export type { ObjectStoreDialect } from "./dialect.js";
export { ObjectLayout } from "./layout.js";
export type { ObjectStoreOptions } from "./options.js";
export type { RepairOptions, RepairReport } from "./repair.js";
export { REQUEST_ID_KEY } from "./request-ids.js";
export { ObjectStoreBackend } from "./store.js";
