import type { ArtifactService } from "@artifact-kit/core";
import { importOptional } from "../optional-packages.js";
import type { StoreKind, StoreLocation } from "./uri.js";

/** How a backend's packages are loaded: `import()` unless a caller (a test) says otherwise. */
export type ImportModule = (specifier: string) => Promise<unknown>;

export const importModule: ImportModule = (specifier) => import(specifier);

export interface BackendContext {
  /** fs: create the root directory when it is missing (commands that write). */
  create: boolean;
  /** Only reads follow: open without writing (see OpenStoreOptions.readOnly). */
  readOnly: boolean;
  /** gcs: the API endpoint of an emulator such as fake-gcs-server. */
  gcsEndpoint: string | undefined;
}

/**
 * One kind of store: the packages it needs beyond the CLI's own, and how to open it from
 * them. Every backend is loaded on first use only, so a user of one never loads another's
 * client; a new one (postgres://, s3://) is one more entry of BACKENDS and of uri.ts.
 */
export interface Backend<K extends StoreKind = StoreKind> {
  /** npm packages, in the order `npm install` should name them. */
  readonly packages: readonly string[];
  /** The module (in this package) that opens the store from those packages. */
  readonly opener: () => Promise<{ open: Opener<K> }>;
}

export type Opener<K extends StoreKind> = (
  location: Extract<StoreLocation, { kind: K }>,
  modules: readonly unknown[],
  context: BackendContext,
) => Promise<ArtifactService>;

export const BACKENDS: { readonly [K in StoreKind]: Backend<K> } = {
  fs: { packages: ["@artifact-kit/fs"], opener: () => import("./open-fs.js") },
  memory: { packages: ["@artifact-kit/memory"], opener: () => import("./open-memory.js") },
  // Optional peer dependencies of the CLI: installed by whoever uses a gs:// store.
  gcs: {
    packages: ["@artifact-kit/gcs", "@google-cloud/storage"],
    opener: () => import("./open-gcs.js"),
  },
  s3: {
    packages: ["@artifact-kit/s3", "@aws-sdk/client-s3"],
    opener: () => import("./open-s3.js"),
  },
  azure: {
    packages: ["@artifact-kit/azure", "@azure/storage-blob"],
    opener: () => import("./open-azure.js"),
  },
  postgres: {
    packages: ["@artifact-kit/postgres", "pg"],
    opener: () => import("./open-postgres.js"),
  },
};

/**
 * Imports every package of a backend. One that is not installed is the user's to install:
 * invalid_argument naming the exact `npm install` line, never an internal error.
 */
export function loadPackages(kind: StoreKind, load: ImportModule): Promise<readonly unknown[]> {
  return importOptional(
    BACKENDS[kind].packages,
    { field: "store", purpose: `a ${kind} store` },
    load,
  );
}
