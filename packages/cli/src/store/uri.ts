import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { invalidArgument } from "@artifact-kit/core";
import { parseCount } from "../parse-count.js";

/** Bounds of a store the user may set (raise or lower) beside its location. */
export interface StoreBounds {
  maxArtifactBytes?: number;
  maxPageLimit?: number;
}

/** The bound names, as URI parameters (`?maxArtifactBytes=N`); every adapter takes them. */
const STORE_BOUND_NAMES = ["maxArtifactBytes", "maxPageLimit"] as const;

/** Where the artifacts are, as named by one `--store` URI. */
export type StoreLocation = (
  | { readonly kind: "fs"; readonly root: string }
  | { readonly kind: "memory" }
  | { readonly kind: "gcs"; readonly bucket: string; readonly prefix: string }
  | { readonly kind: "s3"; readonly bucket: string; readonly prefix: string }
  | { readonly kind: "azure"; readonly container: string; readonly prefix: string }
  | {
      readonly kind: "postgres";
      /** The URI without the CLI's own parameters (schema and bounds), for pg. */
      readonly connectionString: string;
      readonly schema: string | undefined;
    }
) & { readonly bounds?: StoreBounds };

export type StoreKind = StoreLocation["kind"];

export const DEFAULT_STORE = "fs:./.artifacts";

export const STORE_URI_FORMS =
  "fs:PATH, file:///PATH, memory:, memory://, gs://BUCKET/PREFIX, gcs://BUCKET/PREFIX, s3://BUCKET/PREFIX, az://CONTAINER/PREFIX, azblob://CONTAINER/PREFIX or postgres://USER@HOST:PORT/DATABASE?schema=SCHEMA";

/**
 * Parses a store URI. `fs:PATH` is a plain path (relative to `cwd`, taken literally, `?`
 * included); the URL forms (`file:`, `memory://`, `gs:`, `gcs:`, `s3:`, `az:`, `azblob:`) are parsed as URLs and may
 * carry bounds as parameters, e.g. `gs://bucket/prefix?maxArtifactBytes=268435456`.
 * Anything else is invalid_argument: a typo must never open some other store.
 */
export function parseStoreUri(uri: string, cwd = process.cwd()): StoreLocation {
  if (uri === "memory:") return { kind: "memory" };
  if (uri.startsWith("fs:")) {
    const path = uri.slice("fs:".length);
    if (path === "") throw invalidArgument("store", "fs: needs a directory, e.g. fs:./.artifacts");
    return { kind: "fs", root: resolve(cwd, path) };
  }
  const url = parseUrl(uri);
  if (url.protocol === "postgres:" || url.protocol === "postgresql:") return postgresLocation(url);
  const bounds = boundsOf(url.searchParams);
  const withBounds = Object.keys(bounds).length === 0 ? {} : { bounds };
  if (url.hash !== "") throw invalidArgument("store", "a store URI has no #fragment");
  switch (url.protocol) {
    case "memory:":
      if (url.host !== "" || (url.pathname !== "" && url.pathname !== "/")) {
        throw invalidArgument("store", "memory:// takes no host or path");
      }
      return { kind: "memory", ...withBounds };
    case "file:":
      return { kind: "fs", root: fileRoot(url), ...withBounds };
    case "gs:":
    case "gcs:":
      return { kind: "gcs", ...bucketAndPrefix(url), ...withBounds };
    case "s3:":
      return { kind: "s3", ...bucketAndPrefix(url), ...withBounds };
    case "az:":
    case "azblob:": {
      const { bucket: container, prefix } = bucketAndPrefix(url);
      return { kind: "azure", container, prefix, ...withBounds };
    }
    default:
      throw unknownUri(uri);
  }
}

function parseUrl(uri: string): URL {
  try {
    return new URL(uri);
  } catch {
    throw unknownUri(uri);
  }
}

function unknownUri(uri: string) {
  return invalidArgument("store", `unknown store URI "${uri}" (${STORE_URI_FORMS})`);
}

function fileRoot(url: URL): string {
  if (url.host !== "" && url.host !== "localhost") {
    throw invalidArgument("store", "file:// names a local directory: file:///absolute/path");
  }
  const root = fileURLToPath(url);
  if (!isAbsolute(root) || url.pathname === "/") {
    throw invalidArgument("store", "file:// needs a directory other than /: file:///absolute/path");
  }
  return root.replace(/\/+$/, "");
}

function bucketAndPrefix(url: URL): { bucket: string; prefix: string } {
  const bucket = url.host;
  if (bucket === "" || url.username !== "" || url.port !== "") {
    throw invalidArgument(
      "store",
      `${url.protocol}// needs a bucket: ${url.protocol}//BUCKET/PREFIX`,
    );
  }
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+/, "").replace(/\/+$/, "");
  return { bucket, prefix };
}

/**
 * A PostgreSQL URI as pg takes it, less the CLI's own parameters: `schema` and the bounds.
 * Every other parameter (sslmode, ...) is pg's, and stays.
 */
function postgresLocation(url: URL): StoreLocation {
  const own = new URLSearchParams();
  const theirs = new URLSearchParams();
  for (const [key, value] of url.searchParams) {
    (key === "schema" || STORE_BOUND_NAMES.some((name) => name === key) ? own : theirs).append(
      key,
      value,
    );
  }
  const schema = own.get("schema") ?? undefined;
  own.delete("schema");
  const bounds = boundsOf(own);
  const connection = new URL(url.href);
  connection.search = theirs.toString();
  return {
    kind: "postgres",
    connectionString: connection.href,
    schema,
    ...(Object.keys(bounds).length === 0 ? {} : { bounds }),
  };
}

function boundsOf(params: URLSearchParams): StoreBounds {
  const bounds: StoreBounds = {};
  for (const [key, value] of params) {
    const bound = STORE_BOUND_NAMES.find((name) => name === key);
    if (bound === undefined) {
      throw invalidArgument(
        "store",
        `unknown parameter "${key}" (the store takes ${STORE_BOUND_NAMES.join(", ")})`,
      );
    }
    if (bounds[bound] !== undefined) throw invalidArgument("store", `"${key}" is given twice`);
    bounds[bound] = parseCount(value, key);
  }
  return bounds;
}

/** Bounds from the command line join those of the URI; one given in both is an error. */
export function withBounds(location: StoreLocation, extra: StoreBounds): StoreLocation {
  const bounds: StoreBounds = { ...location.bounds };
  for (const name of STORE_BOUND_NAMES) {
    const value = extra[name];
    if (value === undefined) continue;
    if (bounds[name] !== undefined) {
      throw invalidArgument(name, "is given both in --store and as a flag");
    }
    bounds[name] = value;
  }
  return Object.keys(bounds).length === 0 ? location : { ...location, bounds };
}
