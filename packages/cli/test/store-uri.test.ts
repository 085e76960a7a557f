import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, parseStoreUri } from "../src/index.js";

describe("parseStoreUri", () => {
  it("takes the ADK forms beside the CLI's own", () => {
    expect(parseStoreUri("gs://bucket/team/prod/")).toEqual({
      kind: "gcs",
      bucket: "bucket",
      prefix: "team/prod",
    });
    expect(parseStoreUri("gcs://bucket")).toEqual({ kind: "gcs", bucket: "bucket", prefix: "" });
    expect(parseStoreUri("file:///var/lib/artifacts")).toEqual({
      kind: "fs",
      root: "/var/lib/artifacts",
    });
    expect(parseStoreUri("file:///var/my%20artifacts/")).toEqual({
      kind: "fs",
      root: "/var/my artifacts",
    });
    expect(parseStoreUri("memory://")).toEqual({ kind: "memory" });
    expect(parseStoreUri("memory:")).toEqual({ kind: "memory" });
    expect(parseStoreUri("fs:rel?x", "/base")).toEqual({ kind: "fs", root: "/base/rel?x" });
  });

  it("takes s3:// and postgres:// stores; pg's own parameters stay in the connection string", () => {
    expect(parseStoreUri("s3://bucket/team/prod?maxPageLimit=10")).toEqual({
      kind: "s3",
      bucket: "bucket",
      prefix: "team/prod",
      bounds: { maxPageLimit: 10 },
    });
    expect(
      parseStoreUri(
        "postgresql://me:secret@db:5432/app?sslmode=require&schema=arts&maxPageLimit=5",
      ),
    ).toEqual({
      kind: "postgres",
      connectionString: "postgresql://me:secret@db:5432/app?sslmode=require",
      schema: "arts",
      bounds: { maxPageLimit: 5 },
    });
    expect(parseStoreUri("postgres://db/app")).toMatchObject({ schema: undefined });
  });

  it("takes az:// and azblob:// stores: a container and a prefix", () => {
    const location = { kind: "azure", container: "artifacts", prefix: "team/prod" };
    expect(parseStoreUri("az://artifacts/team/prod/")).toEqual(location);
    expect(parseStoreUri("azblob://artifacts/team/prod?maxArtifactBytes=1024")).toEqual({
      ...location,
      bounds: { maxArtifactBytes: 1024 },
    });
    for (const uri of ["az://", "azblob:///prefix", "az://user@container/p", "az://c?x=1"]) {
      expect(() => parseStoreUri(uri), uri).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });

  it("reads bounds from URI parameters, validated", () => {
    expect(parseStoreUri("gs://b/p?maxArtifactBytes=1048576&maxPageLimit=50")).toEqual({
      kind: "gcs",
      bucket: "b",
      prefix: "p",
      bounds: { maxArtifactBytes: 1_048_576, maxPageLimit: 50 },
    });
    for (const uri of [
      "gs://b?maxArtifactBytes=0",
      "gs://b?maxArtifactBytes=x",
      "gs://b?unknown=1",
      "gs://b#frag",
      "postgres://host/db?maxPageLimit=0",
      "s3://",
      "file://remote/x",
      "memory://host",
    ]) {
      expect(() => parseStoreUri(uri), uri).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });
});

/** Node's own error for a package that is not installed. */
function notInstalled(specifier: string): Error {
  return Object.assign(
    new Error(`Cannot find package '${specifier}' imported from /somewhere/cli/dist/x.js`),
    { code: "ERR_MODULE_NOT_FOUND" },
  );
}

describe("backends load on demand", () => {
  it("an fs store loads the fs adapter only", async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-lazy-"));
    const loaded: string[] = [];
    const service = await openStore(parseStoreUri(`file://${root}`), {
      importModule: (specifier) => {
        loaded.push(specifier);
        return import(specifier);
      },
    });
    await service.close();
    await rm(root, { recursive: true, force: true });
    expect(loaded).toEqual(["@artifact-kit/fs"]);
  });

  it("hands the bounds to the adapter, above its defaults too", async () => {
    const root = await mkdtemp(join(tmpdir(), "artifact-kit-bounds-"));
    const raised = { maxArtifactBytes: 256 * 1024 * 1024, maxPageLimit: 5 };
    for (const uri of [`file://${root}`, "memory://"]) {
      const query = `?maxArtifactBytes=${raised.maxArtifactBytes}&maxPageLimit=${raised.maxPageLimit}`;
      const service = await openStore(parseStoreUri(`${uri}${query}`));
      const { quotas, pagination } = service.capabilities();
      expect(quotas.bounds.maxArtifactBytes, uri).toBe(raised.maxArtifactBytes);
      expect(pagination.maxPageLimit, uri).toBe(raised.maxPageLimit);
      await service.close();
    }
    await rm(root, { recursive: true, force: true });
  });

  it("a gs:// store whose packages are not installed says what to install", async () => {
    const without =
      (...missing: string[]) =>
      (specifier: string) =>
        missing.includes(specifier) ? Promise.reject(notInstalled(specifier)) : import(specifier);
    const location = parseStoreUri("gs://bucket/prefix");
    await expect(
      openStore(location, { importModule: without("@google-cloud/storage") }),
    ).rejects.toMatchObject({
      code: "invalid_argument",
      detail: { field: "store" },
      message: expect.stringContaining("npm install @google-cloud/storage"),
    });
    await expect(
      openStore(location, {
        importModule: without("@artifact-kit/gcs", "@google-cloud/storage"),
      }),
    ).rejects.toMatchObject({
      message: expect.stringContaining("npm install @artifact-kit/gcs @google-cloud/storage"),
    });
  });

  it("a package that fails for another reason is not reported as missing", async () => {
    const broken = Object.assign(new Error("Cannot find package 'left-pad' imported from x"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(
      openStore(parseStoreUri("memory://"), { importModule: () => Promise.reject(broken) }),
    ).rejects.toBe(broken);
  });
});
