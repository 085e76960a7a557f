import { randomUUID } from "node:crypto";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

/** The fake-gcs-server the gcs package's global setup started (or found). */
export const gcsEndpoint = (): string => inject("gcsEndpoint");

/** A new, empty bucket on the emulator, created through its JSON API. */
export async function freshBucket(endpoint: string): Promise<string> {
  const name = `cli-${randomUUID()}`;
  const response = await fetch(`${endpoint}/storage/v1/b?project=artifact-kit-test`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (!response.ok) throw new Error(`creating bucket ${name}: ${response.status}`);
  return name;
}
