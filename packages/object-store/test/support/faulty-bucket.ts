import { unavailable } from "@artifact-kit/core";
import type { FaultInjection, FaultKind } from "@artifact-kit/core/conformance";
import type { ObjectBucket } from "../../src/index.js";

// The kit's fault injection over a bucket in memory, so that the fault laws run over the
// protocol without a server and its patched copies: each call of a request method is one
// backend request. A cut one never reaches the bucket; a lost reply reaches it, and the caller
// hears unavailable, as the gcs client does (it does not retry) after a dropped connection.

/** The methods that are one request each; streams and staging stay whole (no law faults them). */
const REQUESTS = new Set(["createOnly", "get", "head", "list", "delete", "addMetadata"]);

export class BucketFaults implements FaultInjection {
  #armed: { kind: FaultKind; skip: number } | undefined;
  #took = false;

  armNext(kind: FaultKind, skip = 0): void {
    this.#armed = { kind, skip };
    this.#took = false;
  }

  disarm(): boolean {
    this.#armed = undefined;
    return this.#took;
  }

  /** `bucket` with the armed fault at its coming requests. */
  wrap<B extends ObjectBucket>(bucket: B): B {
    return new Proxy(bucket, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver);
        // Methods run on the bucket itself: its private fields are not the proxy's.
        if (typeof value !== "function") return value;
        if (typeof property !== "string" || !REQUESTS.has(property)) return value.bind(target);
        return async (...args: unknown[]) => {
          const fault = this.#take();
          if (fault === "cut-before") throw unavailable("injected: the request never arrived");
          const reply = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (fault === "lost-reply") throw unavailable("injected: the reply was lost");
          return reply;
        };
      },
    });
  }

  #take(): FaultKind | undefined {
    const armed = this.#armed;
    if (armed === undefined) return undefined;
    if (armed.skip > 0) {
      this.#armed = { ...armed, skip: armed.skip - 1 };
      return undefined;
    }
    this.#armed = undefined;
    this.#took = true;
    return armed.kind;
  }
}
