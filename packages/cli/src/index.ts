export type {
  ApiOperation,
  DeveloperApiOptions,
  ResourceDecision,
  ResourceProvider,
} from "./api/options.js";
export { type DeveloperApi, startDeveloperApi } from "./api/server.js";
export { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
export {
  DEFAULT_STORE,
  type ImportModule,
  type OpenStoreOptions,
  openStore,
  parseStoreUri,
  type StoreBounds,
  type StoreLocation,
} from "./store.js";
export { walkthrough } from "./walkthrough.js";
