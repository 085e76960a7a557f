import { randomUUID } from "node:crypto";
import { azureSubjects } from "@artifact-kit/azure/testing";
import type {
  ArtifactServiceConformanceOptions,
  FaultInjection,
  FaultKind,
  ServiceSubject,
} from "@artifact-kit/core/conformance";
import { gcsSubjects } from "@artifact-kit/gcs/testing";
import { s3Subjects } from "@artifact-kit/s3/testing";
import { type Fault, FaultProxy } from "@artifact-kit/test-proxy";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type Bucket, Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, inject } from "vitest";
import { azureContainer } from "./azure.js";

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

  armNext(kind: FaultKind, skip = 0, times = 1): void {
    this.proxy.clearFaults();
    this.#took = false;
    let passing = skip;
    // Asked only while the rule has strikes left (the proxy counts `times` down).
    const takes = () => {
      if (passing > 0) {
        passing -= 1;
        return false;
      }
      this.#took = true;
      this.fired += 1;
      return true;
    };
    this.proxy.inject(takes, kind === "lost-reply" ? "drop-response" : this.refusal, times);
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
const AZURE_UNAVAILABLE: Fault = {
  answer: {
    status: 503,
    contentType: "application/xml",
    body: '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>The server is busy.</Message></Error>',
  },
};
const GCS_UNAVAILABLE: Fault = { answer: { status: 503, body: '{"error":{"code":503}}' } };

type FaultOptions = Pick<ArtifactServiceConformanceOptions, "create">;

/** A network adapter's server and how to reach it through a fault proxy. */
interface ProxiedBackend {
  readonly label: string;
  readonly target: () => string;
  /** The server's own refusal, which the proxy answers for a cut request. */
  readonly refusal: Fault;
  /** Send the server's host in the Host header (see FaultProxyOptions). */
  readonly rewriteHost: boolean;
  /** Creates the bucket `name` on the server itself. */
  readonly createBucket: (name: string) => Promise<unknown>;
  /** The adapter's subject in bucket `bucket`, its client talking to `endpoint`. */
  readonly subject: (endpoint: string, bucket: string) => Promise<ServiceSubject>;
}

/**
 * Subjects in one bucket of `backend`, each with a client through the proxy and the proxy's
 * `faults`; the proxy starts before the file's tests and prints its count after them.
 */
function faultOptions(backend: ProxiedBackend): FaultOptions {
  let proxy: FaultProxy | undefined;
  let faults: ProxyFaults | undefined;
  let bucket: Promise<string> | undefined;
  beforeAll(async () => {
    proxy = await FaultProxy.start(backend.target(), { rewriteHost: backend.rewriteHost });
    faults = new ProxyFaults(proxy, backend.refusal);
  });
  afterAll(async () => {
    console.info(`${backend.label}: ${faults?.fired ?? 0} faults taken by a request`);
    await proxy?.close();
  });
  const newBucket = async () => {
    const name = `faults-${randomUUID()}`;
    await backend.createBucket(name);
    return name;
  };
  return {
    create: async () => {
      if (!proxy || !faults) throw new Error("the fault proxy has not started");
      bucket ??= newBucket();
      return { ...(await backend.subject(proxy.endpoint, await bucket)), faults };
    },
  };
}

const s3Client = (endpoint: string) =>
  new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "matrix", secretAccessKey: "matrix" },
    maxAttempts: 2,
  });

/**
 * s3 on moto through a fault proxy. The client retries once, as the SDK does by default (it
 * tries three times): a lost reply to a create-only write is retried and meets the write it
 * made. One retry, not two, keeps the back-off waits of 200 faults affordable.
 */
export const s3FaultOptions = (): FaultOptions =>
  faultOptions({
    label: "s3 on moto",
    target: () => inject("s3Endpoint"),
    refusal: S3_UNAVAILABLE,
    rewriteHost: false,
    createBucket: (name) =>
      s3Client(inject("s3Endpoint")).send(new CreateBucketCommand({ Bucket: name })),
    subject: (endpoint, bucket) =>
      s3Subjects(
        () => s3Client(endpoint),
        () => bucket,
      ).create(),
  });

const gcsStorage = (apiEndpoint: string) =>
  new Storage({ apiEndpoint, projectId: "matrix", retryOptions: { autoRetry: false } });

/**
 * gcs on fake-gcs-server through a fault proxy. The client does not retry: its retries wait
 * a second at least, which 200 faults cannot afford; the adapter meets every fault itself.
 */
export const gcsFaultOptions = (): FaultOptions =>
  faultOptions({
    label: "gcs on fake-gcs-server",
    target: () => inject("gcsEndpoint"),
    refusal: GCS_UNAVAILABLE,
    rewriteHost: true,
    createBucket: (name) => gcsStorage(inject("gcsEndpoint")).createBucket(name),
    subject: (endpoint, bucket) =>
      gcsSubjects(() => gcsStorage(endpoint).bucket(bucket) as Bucket).create(),
  });

/**
 * azure on Azurite through a fault proxy. The client retries once, soon (see azureContainer):
 * a lost reply to a create-only write is retried and meets the write it made.
 */
export const azureFaultOptions = (): FaultOptions =>
  faultOptions({
    label: "azure on Azurite",
    target: () => blobOrigin(inject("azureConnectionString")),
    refusal: AZURE_UNAVAILABLE,
    rewriteHost: false,
    createBucket: (name) => azureContainer(name).create(),
    subject: (endpoint, container) =>
      azureSubjects(() => azureContainer(container, endpoint)).create(),
  });

/** The scheme, host and port of a connection string's blob endpoint. */
function blobOrigin(connectionString: string): string {
  const endpoint = /BlobEndpoint=([^;]+)/.exec(connectionString)?.[1];
  if (!endpoint) throw new Error("the Azure connection string names no BlobEndpoint");
  return new URL(endpoint).origin;
}
