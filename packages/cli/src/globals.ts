import { type ArtifactService, isArtifactError, notFound, type Scope } from "@artifact-kit/core";
import type { Command } from "commander";
import { withCheckedListings } from "./pages.js";
import { parseCount } from "./parse-count.js";
import { describeScope, type ScopeOptions } from "./scope-options.js";
import {
  type OpenStoreOptions,
  openStore,
  parseStoreUri,
  type StoreBounds,
  type StoreLocation,
  withBounds,
} from "./store.js";

/** The options every command takes (see program.ts). */
export interface GlobalOptions extends ScopeOptions {
  store: string;
  gcsEndpoint?: string;
  maxArtifactBytes?: string;
  maxPageLimit?: string;
  json: boolean;
  verbose: boolean;
}

/** The global options merged with the command's own (`Own`). */
export function globalsOf<Own extends object = object>(command: Command): GlobalOptions & Own {
  return command.optsWithGlobals<GlobalOptions & Own>();
}

/** The store of --store, with the bounds of --max-artifact-bytes and --max-page-limit. */
export function storeLocation(globals: GlobalOptions): StoreLocation {
  const bounds: StoreBounds = {
    ...(globals.maxArtifactBytes === undefined
      ? {}
      : { maxArtifactBytes: parseCount(globals.maxArtifactBytes, "max-artifact-bytes") }),
    ...(globals.maxPageLimit === undefined
      ? {}
      : { maxPageLimit: parseCount(globals.maxPageLimit, "max-page-limit") }),
  };
  return withBounds(parseStoreUri(globals.store), bounds);
}

/**
 * Opens the store named by --store, runs `body` with it (listings checked, see pages.ts),
 * and always closes the store. A `not_found` is told with the scope and store it was
 * looked for in.
 */
export async function withStore<T>(
  globals: GlobalOptions,
  body: (service: ArtifactService) => Promise<T>,
  options: Omit<OpenStoreOptions, "gcsEndpoint"> & { scope?: Scope } = {},
): Promise<T> {
  const { scope, ...openOptions } = options;
  const location = storeLocation(globals);
  const service = await openStore(location, {
    ...openOptions,
    ...(globals.gcsEndpoint === undefined ? {} : { gcsEndpoint: globals.gcsEndpoint }),
  });
  try {
    return await body(withCheckedListings(service));
  } catch (error) {
    if (scope !== undefined && isArtifactError(error, "not_found")) {
      // "artifact "x" version latest not found" becomes "... in app "a" of the store /dir not found".
      const what = error.message.replace(/ not found$/, "");
      const where = `in ${describeScope(scope)} of the store ${describeStore(location)}`;
      throw Object.assign(notFound(`${what} ${where}`, error.detail), { cause: error });
    }
    throw error;
  } finally {
    await service.close();
  }
}

/** The store as the user can find it: a directory, a bucket (or container) and prefix, or memory. */
export function describeStore(location: StoreLocation): string {
  switch (location.kind) {
    case "fs":
      return location.root;
    case "memory":
      return "memory:";
    case "gcs":
      return `gs://${location.bucket}/${location.prefix}`;
    case "s3":
      return `s3://${location.bucket}/${location.prefix}`;
    case "azure":
      return `az://${location.container}/${location.prefix}`;
    case "postgres": {
      // Never a password in a message, and no query: one may carry a password too. (`origin`
      // is "null" for a postgres: URL, so the whole href is built here.)
      const url = new URL(location.connectionString);
      url.password = "";
      url.search = location.schema === undefined ? "" : `?schema=${location.schema}`;
      return url.href;
    }
  }
}
