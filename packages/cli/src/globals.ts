import type { ArtifactService } from "@artifact-kit/core";
import type { Command } from "commander";
import { withCheckedListings } from "./pages.js";
import type { ScopeOptions } from "./scope-options.js";
import { type OpenStoreOptions, openStore, parseStoreUri } from "./store.js";

/** The options every command takes (see program.ts). */
export interface GlobalOptions extends ScopeOptions {
  store: string;
  gcsEndpoint?: string;
  json: boolean;
  verbose: boolean;
}

/** The global options merged with the command's own (`Own`). */
export function globalsOf<Own extends object = object>(command: Command): GlobalOptions & Own {
  return command.optsWithGlobals<GlobalOptions & Own>();
}

/**
 * Opens the store named by --store, runs `body` with it (listings checked, see pages.ts),
 * and always closes the store.
 */
export async function withStore<T>(
  globals: GlobalOptions,
  body: (service: ArtifactService) => Promise<T>,
  options: Omit<OpenStoreOptions, "gcsEndpoint"> = {},
): Promise<T> {
  const service = await openStore(parseStoreUri(globals.store), {
    ...options,
    ...(globals.gcsEndpoint === undefined ? {} : { gcsEndpoint: globals.gcsEndpoint }),
  });
  try {
    return await body(withCheckedListings(service));
  } finally {
    await service.close();
  }
}
