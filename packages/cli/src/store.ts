export type { ImportModule } from "./store/backends.js";
export { type OpenStoreOptions, openStore } from "./store/open.js";
export {
  DEFAULT_STORE,
  parseStoreUri,
  STORE_URI_FORMS,
  type StoreBounds,
  type StoreLocation,
  withBounds,
} from "./store/uri.js";
