import { randomUUID } from "node:crypto";
import { Deadline, invalidArgument } from "@artifact-kit/core";
import type { ObjectLayout } from "@artifact-kit/object-store";
import type { AzureBucket } from "./azure-bucket.js";
import { BlockStaging } from "./block-staging.js";

/** How long `open` waits for its probe before giving up. */
const PROBE_TIMEOUT_MS = 60_000;
const body = new TextEncoder().encode("artifact-kit probe");

/**
 * Checks that the container refuses a second create-only write of one blob, both ways the
 * adapter writes: Put Blob and Put Block List with If-None-Match: *. A container that cannot
 * be reached fails the check as `unavailable`. Leaves nothing behind.
 */
export async function probeCreateOnly(bucket: AzureBucket, layout: ObjectLayout): Promise<void> {
  const deadline = Deadline.start({ timeoutMs: PROBE_TIMEOUT_MS });
  const key = layout.probeObject(randomUUID());
  try {
    await bucket.createOnly(deadline, { key, body }, { commit: true });
    if ((await bucket.createOnly(deadline, { key, body }, { commit: true })) !== "exists") {
      throw refused("Put Blob");
    }
    // A streamed upload's publication over the existing blob, its data one staged block
    // (copied by Put Block From URL, so the copy's authorization is checked too).
    const stagingKey = layout.probeObject(randomUUID());
    const staging = new BlockStaging(bucket, stagingKey, body.byteLength, deadline);
    try {
      await staging.write(body);
      await staging.seal(deadline);
      if ((await staging.complete(deadline, { key })) !== "exists") {
        throw refused("Put Block List");
      }
    } finally {
      await staging.discard();
    }
  } finally {
    await bucket.removeQuietly(key);
  }
}

function refused(request: string): Error {
  return invalidArgument(
    "container",
    `the service ignores If-None-Match: * on ${request}; versions cannot be kept apart on it`,
  );
}
