import { mkdir } from "node:fs/promises";
import { type ArtifactService, invalidArgument, isArtifactError } from "@artifact-kit/core";
import type * as FsPackage from "@artifact-kit/fs";
import type { Opener } from "./backends.js";

export const open: Opener<"fs"> = async (location, [fs], { create }) => {
  const { FsArtifactService } = fs as typeof FsPackage;
  if (create) await mkdir(location.root, { recursive: true });
  try {
    return (await FsArtifactService.open({
      root: location.root,
      ...location.bounds,
    })) as ArtifactService;
  } catch (error) {
    if (isArtifactError(error, "invalid_argument") && error.detail.field === "root") {
      // The adapter names the field; the user needs the directory, and what to do about it.
      throw Object.assign(
        invalidArgument(
          "store",
          `the fs store ${location.root} ${error.message.replace(/^root: /, "")}`,
        ),
        { cause: error },
      );
    }
    throw error;
  }
};
