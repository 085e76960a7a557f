import type * as MemoryPackage from "@artifact-kit/memory";
import type { Opener } from "./backends.js";

export const open: Opener<"memory"> = async (location, [memory]) => {
  const { MemoryArtifactService } = memory as typeof MemoryPackage;
  return new MemoryArtifactService({ ...location.bounds });
};
