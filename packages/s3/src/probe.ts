import { randomUUID } from "node:crypto";
import { ArtifactError, Deadline, invalidArgument } from "@artifact-kit/core";
import type { ObjectLayout } from "@artifact-kit/object-store";
import { type S3Bucket, statusOf } from "./bucket-client.js";
import type { MultipartCompletion } from "./config.js";

/** How long `open` waits for its probe before giving up. */
const PROBE_TIMEOUT_MS = 60_000;
const body = new TextEncoder().encode("artifact-kit probe");
const COMMIT = { commit: true };

/**
 * Checks that the bucket refuses a second create-only write of one key: PutObject with
 * If-None-Match: * (which every version allocation relies on) and, unless the caller opted
 * into the unconditional mode, CompleteMultipartUpload with it too. Leaves nothing behind.
 */
export async function probeConditionalWrites(
  client: S3Bucket,
  layout: ObjectLayout,
  completion: MultipartCompletion,
): Promise<void> {
  const deadline = Deadline.start({ timeoutMs: PROBE_TIMEOUT_MS });
  const key = layout.probeObject(randomUUID());
  try {
    await client.createOnly(deadline, { key, body }, COMMIT);
    const second = await refusal(client.createOnly(deadline, { key, body }, COMMIT));
    if (second !== "exists") {
      throw invalidArgument(
        "client",
        `bucket ignores If-None-Match: * on PutObject (${second}); versions cannot be kept apart on it, and there is no weaker mode for that`,
      );
    }
    if (completion === "create-only") await probeCompletion(client, deadline, key);
  } finally {
    await client.removeQuietly(key);
  }
}

async function probeCompletion(client: S3Bucket, deadline: Deadline, key: string) {
  const upload = { key, uploadId: await client.startMultipart(deadline, key) };
  try {
    const etag = await client.uploadPart(deadline, upload, 1, body);
    const outcome = await refusal(
      client.completeMultipart(deadline, upload, [etag], { createOnly: true, commit: true }),
    );
    if (outcome !== "exists") {
      throw invalidArgument(
        "multipartCompletion",
        `bucket does not refuse CompleteMultipartUpload with If-None-Match: * over an existing key (${outcome}); pass multipartCompletion: "unconditional" to accept the weaker mode in the README`,
      );
    }
  } finally {
    await client.abortQuietly(upload);
  }
}

/**
 * A conditional write's outcome, with "overwrote" for a write that should have been refused
 * and the status for a server that rejects the header itself (400 or 501). Other failures
 * (the network, the deadline) propagate: they say nothing about the server.
 */
async function refusal(write: Promise<"created" | "exists">): Promise<string> {
  try {
    const outcome = await write;
    return outcome === "created" ? "overwrote the key" : outcome;
  } catch (error) {
    const status = error instanceof ArtifactError ? statusOf(error.cause) : undefined;
    if (status === 400 || status === 501) return `answered ${status}`;
    throw error;
  }
}
