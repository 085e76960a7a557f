import type { BucketDump } from "@artifact-kit/fault-trials";
import type { Bucket } from "@google-cloud/storage";

/** Every object under `prefix` (which ends in "/"), read with the raw client. */
export async function dumpPrefix(bucket: Bucket, prefix: string): Promise<BucketDump> {
  const [files] = await bucket.getFiles({ prefix });
  const objects = [];
  for (const file of files) {
    const [body] = await file.download();
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(file.metadata.metadata ?? {})) {
      if (typeof value === "string") metadata[key] = value;
    }
    objects.push({ key: file.name.slice(prefix.length), body: body.toString("base64"), metadata });
  }
  return { objects };
}

/** Writes a dump's objects under `prefix`, as they were. */
export async function restorePrefix(bucket: Bucket, prefix: string, dump: BucketDump) {
  for (const object of dump.objects) {
    await bucket.file(prefix + object.key).save(Buffer.from(object.body, "base64"), {
      resumable: false,
      metadata: { metadata: object.metadata },
    });
  }
}
