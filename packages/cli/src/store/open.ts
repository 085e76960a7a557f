import type { ArtifactService } from "@artifact-kit/core";
import {
  BACKENDS,
  type BackendContext,
  type ImportModule,
  importModule,
  loadPackages,
} from "./backends.js";
import type { StoreLocation } from "./uri.js";

export interface OpenStoreOptions {
  /** fs: create the root directory when it is missing (commands that write). */
  create?: boolean;
  /**
   * The caller only reads, so read permissions must suffice: s3 skips the probe of
   * create-only writes (which writes and deletes an object), postgres checks the schema
   * instead of migrating it. Default false: writers get both checks before their first write.
   */
  readOnly?: boolean;
  /** gcs: the API endpoint of an emulator such as fake-gcs-server. */
  gcsEndpoint?: string;
  /**
   * How the backend's packages are imported (default `import()`): a seam for tools that
   * bundle or sandbox them, and for tests that simulate a package that is not installed.
   */
  importModule?: ImportModule;
}

/**
 * Opens the store at `location` with its bounds. Only that backend's packages are loaded;
 * one that is not installed fails with invalid_argument naming the `npm install` line.
 */
export async function openStore(
  location: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<ArtifactService> {
  const load = options.importModule ?? importModule;
  const modules = await loadPackages(location.kind, load);
  const context: BackendContext = {
    create: options.create ?? false,
    readOnly: options.readOnly ?? false,
    gcsEndpoint: options.gcsEndpoint,
  };
  switch (location.kind) {
    case "fs":
      return (await BACKENDS.fs.opener()).open(location, modules, context);
    case "memory":
      return (await BACKENDS.memory.opener()).open(location, modules, context);
    case "gcs":
      return (await BACKENDS.gcs.opener()).open(location, modules, context);
    case "s3":
      return (await BACKENDS.s3.opener()).open(location, modules, context);
    case "azure":
      return (await BACKENDS.azure.opener()).open(location, modules, context);
    case "postgres":
      return (await BACKENDS.postgres.opener()).open(location, modules, context);
  }
}
