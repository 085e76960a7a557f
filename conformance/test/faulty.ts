import { randomUUID } from "node:crypto";
import type {
  ArtifactServiceConformanceOptions,
  FaultInjection,
  FaultKind,
} from "@artifact-kit/core/conformance";
import { gcsSubjects } from "@artifact-kit/gcs/testing";
import { s3Subjects } from "@artifact-kit/s3/testing";
import { type Fault, FaultProxy } from "@artifact-kit/test-proxy";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type Bucket, Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, inject } from "vitest";

// The kit's fault laws over the network adapters: the adapter's client talks to its server
// through the HTTP fault proxy, and the subject's `faults` arms one fault there. A lost reply
// is the proxy's drop-response (the request is served, the connection dropped before the
// answer); a cut request is a canned 503, which the server never sees.

/** Arms faults at a proxy's coming requests, and counts those that a request took. */
export class ProxyFaults implements FaultInjection {
  /** Faults that a request took, over the run. */
  fired = 0;
  #took = false;

  constructor(
    private readonly proxy: FaultProxy,
    /** The server's own refusal, answered by the proxy instead of forwarding. */
    private readonly refusal: Fault,
  ) {}

  armNext(kind: FaultKind, skip = 0): void {
    this.proxy.clearFaults();
    this.#took = false;
    let passing = skip;
    const takes = () => {
      if (passing > 0) {
        passing -= 1;
        return false;
      }
      this.#took = true;
      this.fired += 1;
      return true;
    };
    this.proxy.inject(takes, kind === "lost-reply" ? "drop-response" : this.refusal);
  }

  disarm(): boolean {
    this.proxy.clearFaults();
    return this.#took;
  }
}

const S3_UNAVAILABLE: Fault = {
  answer: {
    status: 503,
    contentType: "application/xml",
    body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>Please try again.</Message></Error>',
  },
};
const GCS_UNAVAILABLE: Fault = { answer: { status: 503, body: '{"error":{"code":503}}' } };

type FaultOptions = Pick<ArtifactServiceConformanceOptions, "create">;

/** Registers the proxy's start and stop; `faults()` gives the injector once it runs. */
function proxied(target: () => string, refusal: Fault, rewriteHost: boolean, label: string) {
  let proxy: FaultProxy | undefined;
  let faults: ProxyFaults | undefined;
  beforeAll(async () => {
    proxy = await FaultProxy.start(target(), { rewriteHost });
    faults = new ProxyFaults(proxy, refusal);
  });
  afterAll(async () => {
    console.info(`${label}: ${faults?.fired ?? 0} faults taken by a request`);
    await proxy?.close();
  });
  const started = () => {
    if (!proxy || !faults) throw new Error("the fault proxy has not started");
    return { proxy, faults };
  };
  return started;
}

/**
 * s3 on moto through a fault proxy. The client retries once, as the SDK does by default (it
 * tries three times): a lost reply to a create-only write is retried and meets the write it
 * made. One retry, not two, keeps the back-off waits of 200 faults affordable.
 */
export function s3FaultOptions(): FaultOptions {
  const started = proxied(() => inject("s3Endpoint"), S3_UNAVAILABLE, false, "s3 on moto");
  const client = (endpoint: string) =>
    new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "matrix", secretAccessKey: "matrix" },
      maxAttempts: 2,
    });
  let bucket: string | undefined;
  return {
    create: async () => {
      const { proxy, faults } = started();
      if (bucket === undefined) {
        bucket = `faults-${randomUUID()}`;
        await client(inject("s3Endpoint")).send(new CreateBucketCommand({ Bucket: bucket }));
      }
      const name = bucket;
      const subject = await s3Subjects(
        () => client(proxy.endpoint),
        () => name,
      ).create();
      return { ...subject, faults };
    },
  };
}

/**
 * gcs on fake-gcs-server through a fault proxy. The client does not retry: its retries wait
 * a second at least, which 200 faults cannot afford; the adapter meets every fault itself.
 */
export function gcsFaultOptions(): FaultOptions {
  const started = proxied(
    () => inject("gcsEndpoint"),
    GCS_UNAVAILABLE,
    true,
    "gcs on fake-gcs-server",
  );
  const storage = (apiEndpoint: string) =>
    new Storage({ apiEndpoint, projectId: "matrix", retryOptions: { autoRetry: false } });
  let bucket: string | undefined;
  return {
    create: async () => {
      const { proxy, faults } = started();
      if (bucket === undefined) {
        bucket = `faults-${randomUUID()}`;
        await storage(inject("gcsEndpoint")).createBucket(bucket);
      }
      const name = bucket;
      const open = () => storage(proxy.endpoint).bucket(name) as Bucket;
      const subject = await gcsSubjects(open).create();
      return { ...subject, faults };
    },
  };
}
