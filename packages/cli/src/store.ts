import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { type ArtifactService, invalidArgument } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import { MemoryArtifactService } from "@artifact-kit/memory";

/** Where the artifacts are, as named by one `--store` URI. */
export type StoreLocation =
  | { readonly kind: "fs"; readonly root: string }
  | { readonly kind: "memory" }
  | { readonly kind: "gcs"; readonly bucket: string; readonly prefix: string };

export const DEFAULT_STORE = "fs:./.artifacts";

/**
 * Parses `fs:PATH` (relative to `cwd`), `memory:` or `gcs://BUCKET[/PREFIX]`. Anything
 * else is invalid_argument: a typo must never open some other store.
 */
export function parseStoreUri(uri: string, cwd = process.cwd()): StoreLocation {
  if (uri === "memory:") return { kind: "memory" };
  if (uri.startsWith("fs:")) {
    const path = uri.slice("fs:".length);
    if (path === "") throw invalidArgument("store", "fs: needs a directory, e.g. fs:./.artifacts");
    return { kind: "fs", root: resolve(cwd, path) };
  }
  if (uri.startsWith("gcs://")) {
    const rest = uri.slice("gcs://".length);
    const slash = rest.indexOf("/");
    const bucket = slash === -1 ? rest : rest.slice(0, slash);
    const prefix = slash === -1 ? "" : rest.slice(slash + 1).replace(/\/+$/, "");
    if (bucket === "") throw invalidArgument("store", "gcs:// needs a bucket: gcs://bucket/prefix");
    return { kind: "gcs", bucket, prefix };
  }
  throw invalidArgument(
    "store",
    `unknown store URI "${uri}" (fs:PATH, memory: or gcs://BUCKET/PREFIX)`,
  );
}

export interface OpenStoreOptions {
  /** fs: create the root directory when it is missing (commands that write). */
  create?: boolean;
  /** gcs: the API endpoint of an emulator such as fake-gcs-server. */
  gcsEndpoint?: string;
}

export async function openStore(
  location: StoreLocation,
  options: OpenStoreOptions = {},
): Promise<ArtifactService> {
  switch (location.kind) {
    case "memory":
      return new MemoryArtifactService();
    case "fs":
      if (options.create) await mkdir(location.root, { recursive: true });
      return FsArtifactService.open({ root: location.root });
    case "gcs":
      return openGcs(location, options.gcsEndpoint);
  }
}

/** Loaded on demand, so fs and memory users never load the GCS client. */
async function openGcs(
  location: Extract<StoreLocation, { kind: "gcs" }>,
  apiEndpoint: string | undefined,
): Promise<ArtifactService> {
  const [{ Storage }, { GcsArtifactService }] = await Promise.all([
    import("@google-cloud/storage"),
    import("@artifact-kit/gcs"),
  ]);
  // With an explicit endpoint the client must not also read STORAGE_EMULATOR_HOST, which
  // @google-cloud/storage 7 takes as its whole base URL.
  if (apiEndpoint !== undefined) delete process.env.STORAGE_EMULATOR_HOST;
  const storage =
    apiEndpoint === undefined
      ? new Storage()
      : new Storage({ apiEndpoint, projectId: "artifact-kit-emulator" });
  return new GcsArtifactService({
    bucket: storage.bucket(location.bucket),
    prefix: location.prefix,
  });
}
