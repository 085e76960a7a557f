import type { Bucket } from "@google-cloud/storage";

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
