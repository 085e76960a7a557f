import { randomUUID } from "node:crypto";
import type { ParsedUpload, UploadTarget } from "@artifact-kit/core/adapter";
import type { ObjectBucket } from "./bucket.js";
import type { ObjectFormat } from "./format.js";
import type { ObjectLayout } from "./layout.js";
import type { Publisher } from "./publisher.js";

/**
 * A streamed upload: the bytes go to the bucket's staging (one part or chunk held at a
 * time); at finish the data is sealed, a version allocated, and the staged data completed
 * create-only into the version's object with the format's manifest around it: the
 * publication point. Whatever happens, the staging is removed.
 */
export function stagedUpload(
  bucket: ObjectBucket,
  layout: ObjectLayout,
  format: ObjectFormat,
  publisher: Publisher,
  request: ParsedUpload,
): UploadTarget {
  const staging = bucket.openStaging(request.deadline, layout.uploadObject(randomUUID()));
  return {
    write: (chunk) => staging.write(chunk),
    publish: async (digest, deadline) => {
      try {
        await staging.seal(deadline);
        return await publisher.publish({ ...request, deadline }, digest, (manifest, key) =>
          staging.complete(deadline, { key, ...format.around(manifest) }),
        );
      } finally {
        await staging.discard();
      }
    },
    discard: () => staging.discard(),
  };
}
