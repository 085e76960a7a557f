import { GcsArtifactService } from "@artifact-kit/gcs";
import { type Bucket, Storage } from "@google-cloud/storage";
import type { BenchBucket } from "../object-store/bucket.js";

/** The project the gcs suites' clients name (the emulator takes any). */
export const PROJECT = "artifact-kit-bench";

/** Untimed: create `bucket` on the emulator, or delete everything it holds. */
export async function emptyBucket(bucket: Bucket): Promise<void> {
  const [exists] = await bucket.exists();
  if (exists) await bucket.deleteFiles({ force: true });
  else await bucket.create();
}

/** The gcs suites take the endpoint from --gcs; @google-cloud/storage 7 would take
 * STORAGE_EMULATOR_HOST as its whole base URL and answer 404 everywhere. */
export function refuseEmulatorHostVariable(): void {
  if (process.env.STORAGE_EMULATOR_HOST !== undefined) {
    throw new Error("unset STORAGE_EMULATOR_HOST; the gcs suites take the endpoint from --gcs");
  }
}

/**
 * `name` on the emulator at `endpoint`: raw `file.save` (a single-request upload),
 * `file.download` and `getFiles`.
 */
export function gcsBucket(endpoint: string, name: string): BenchBucket {
  const bucket = new Storage({ apiEndpoint: endpoint, projectId: PROJECT }).bucket(name);
  return {
    empty: () => emptyBucket(bucket),
    service: (bounds) => new GcsArtifactService({ bucket, ...bounds }),
    put: (key, bytes) => bucket.file(key).save(asBuffer(bytes), { resumable: false }),
    get: async (key) => (await bucket.file(key).download())[0],
    list: async (prefix, max) =>
      (
        await bucket.getFiles(
          max === undefined ? { prefix } : { prefix, maxResults: max, autoPaginate: false },
        )
      )[0],
    names: async () => (await bucket.getFiles())[0].map((file) => file.name),
  };
}

/** The same memory seen as a Buffer, without a copy. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
