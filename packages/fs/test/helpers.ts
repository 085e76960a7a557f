import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ArtifactErrorCode, isArtifactError } from "@artifact-kit/core";
import { FsArtifactService, type FsArtifactServiceOptions } from "../src/index.js";

/** A fresh, empty directory under the OS temp dir (its real path) and a way to remove it. */
export async function tempRoot(
  label = "fs",
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), `artifact-kit-${label}-`)));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** A service on a fresh temp root, with cleanup that closes it and removes the root. */
export async function tempService(
  options: Omit<FsArtifactServiceOptions, "root"> = {},
  label?: string,
): Promise<{ service: FsArtifactService; root: string; cleanup: () => Promise<void> }> {
  const temp = await tempRoot(label);
  const service = await FsArtifactService.open({ ...options, root: temp.root });
  return {
    service,
    root: temp.root,
    cleanup: async () => {
      await service.close();
      await temp.cleanup();
    },
  };
}

/** The ArtifactError code a call fails with, or "ok"; anything but an ArtifactError is rethrown. */
export async function codeOf(promise: Promise<unknown>): Promise<ArtifactErrorCode | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (isArtifactError(error)) return error.code;
    throw error;
  }
}
