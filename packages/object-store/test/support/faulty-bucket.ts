import { FaultArming, type FaultInjection, type FaultKind } from "@artifact-kit/core/conformance";
import type { ObjectBucket } from "../../src/index.js";

// The kit's fault injection over a bucket in memory, so that the fault laws run over the
// protocol without a server and its patched copies: each call of a request method is one
// backend request. A cut one never reaches the bucket; a lost reply reaches it, and the caller
// hears unavailable, as the gcs client does (it does not retry) after a dropped connection.

/** The methods that are one request each; streams and staging stay whole (no law faults them). */
const REQUESTS = new Set(["createOnly", "get", "head", "list", "delete", "addMetadata"]);

export class BucketFaults implements FaultInjection {
  readonly #arming = new FaultArming();

  armNext(kind: FaultKind, skip = 0, times = 1): void {
    this.#arming.arm(kind, skip, times);
  }

  disarm(): boolean {
    return this.#arming.disarm();
  }

  /** `bucket` with the armed fault at its coming requests. */
  wrap<B extends ObjectBucket>(bucket: B): B {
    return new Proxy(bucket, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        // Methods run on the bucket itself: its private fields are not the proxy's.
        if (typeof value !== "function") return value;
        if (typeof property !== "string" || !REQUESTS.has(property)) return value.bind(target);
        const request = value as (...a: unknown[]) => Promise<unknown>;
        return (...args: unknown[]) => this.#arming.send(() => request.apply(target, args));
      },
    });
  }
}
