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
export type { ObjectStoreOptions } from "./options.js";
