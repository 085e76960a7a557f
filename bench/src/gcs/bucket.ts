import type { Bucket } from "@google-cloud/storage";

/** Untimed: create `bucket` on the emulator, or delete everything it holds. */
export async function emptyBucket(bucket: Bucket): Promise<void> {
  const [exists] = await bucket.exists();
  if (exists) await bucket.deleteFiles({ force: true });
  else await bucket.create();
}
