import type * as GcsPackage from "@artifact-kit/gcs";
import type * as StoragePackage from "@google-cloud/storage";
import type { Opener } from "./backends.js";

export const open: Opener<"gcs"> = async (location, [gcs, storagePackage], { gcsEndpoint }) => {
  const { GcsArtifactService } = gcs as typeof GcsPackage;
  const { Storage } = storagePackage as typeof StoragePackage;
  // With an explicit endpoint the client must not also read STORAGE_EMULATOR_HOST, which
  // @google-cloud/storage 7 takes as its whole base URL.
  if (gcsEndpoint !== undefined) delete process.env.STORAGE_EMULATOR_HOST;
  const storage =
    gcsEndpoint === undefined
      ? new Storage()
      : new Storage({ apiEndpoint: gcsEndpoint, projectId: "artifact-kit-emulator" });
  return new GcsArtifactService({
    bucket: storage.bucket(location.bucket),
    prefix: location.prefix,
    ...location.bounds,
  });
};
