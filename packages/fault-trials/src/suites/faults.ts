import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  type Scope,
  sha256Hex,
} from "@artifact-kit/core";
import {
  type Fault,
  FaultProxy,
  type FaultProxyOptions,
  type SeenRequest,
} from "@artifact-kit/test-proxy";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

type Service = ArtifactService & ArtifactTransfer;

/** What the fault suite needs of an object-store adapter and its server. */
export interface FaultBackend {
  serverEndpoint(): string;
  proxyOptions?: FaultProxyOptions;
  /** The backend's own refusal (its 503), for the proxy to give. */
  unavailable: Fault;
  /** A fresh store: a service through the proxy at `via`, or straight to the server. */
  openStore(): Promise<(via?: string) => Service>;
  /** Requests by what they do in the protocol's layout (see object-store's ObjectLayout). */
  requests: {
    allocation(request: SeenRequest): boolean;
    publish(request: SeenRequest): boolean;
    listing(request: SeenRequest): boolean;
    /** The request that decides a delete (a deletion marker, or the version's delete). */
    deletion(request: SeenRequest): boolean;
  };
  /**
   * What a delete whose deciding reply was lost answers: success (the retried marker knows
   * itself) or, where the retry cannot tell, success or the ambiguous `unavailable`.
   */
  lostDeletionReply: "deleted" | "deleted or unavailable";
  /**
   * A streamed upload long enough to take the backend's multi-request path, and the request
   * that completes it (S3's CompleteMultipartUpload, Azure's Put Block List, GCS's copy to
   * the version's name).
   */
  streamedUpload: { bytes: number; completion(request: SeenRequest): boolean };
}

const scope: Scope = { kind: "user", app: "app", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);

/** The ArtifactError a call fails with; the test fails if it succeeds or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  return error as ArtifactError;
}

/**
 * Faults between an object-store adapter and its server, one at a time through the fault
 * proxy: lost replies to each deciding write, the backend's 503, delays past the deadline.
 * `more` adds the backend's own tests to the same `describe`, with the proxy and services.
 */
export function describeFaults(backend: FaultBackend, more?: (context: FaultContext) => void) {
  const context = {} as { proxy: FaultProxy; service: Service; observer: Service };
  const { allocation, publish, listing, deletion } = backend.requests;
  const versions = async (name: string) =>
    (await context.observer.listVersions(scope, name)).items.map((meta) => meta.version);

  describe("faults between the client and the server", () => {
    beforeAll(async () => {
      context.proxy = await FaultProxy.start(backend.serverEndpoint(), backend.proxyOptions);
    });
    afterAll(() => context.proxy.close());
    beforeEach(async () => {
      const open = await backend.openStore();
      context.service = open(context.proxy.endpoint);
      context.observer = open();
    });
    afterEach(() => context.proxy.clearFaults());

    it.each([
      ["allocation", allocation],
      ["publication", publish],
    ])("a lost %s response is retried into one version, not two", async (_, step) => {
      const { proxy, service, observer } = context;
      await service.put(scope, "n", bytes("first"));
      proxy.inject(step, "drop-response");
      const meta = await service.put(scope, "n", bytes("second"));
      expect(proxy.seen.filter(step).length).toBeGreaterThanOrEqual(3); // 1st put, lost, retry
      expect(meta.version).toBe(2);
      expect(await versions("n")).toEqual([1, 2]);
      expect(new TextDecoder().decode((await observer.get(scope, "n")).data)).toBe("second");
    });

    it("a 503 is retried; a server that keeps answering it is unavailable, with its cause", async () => {
      const { proxy, service } = context;
      proxy.inject(publish, backend.unavailable);
      expect((await service.put(scope, "n", bytes("x"))).version).toBe(1);
      proxy.inject(publish, backend.unavailable, Number.POSITIVE_INFINITY);
      const refused = await failure(service.put(scope, "n", bytes("y")));
      expect(refused.code).toBe("unavailable");
      expect(refused.cause).toBeDefined();
      // Never half-published: the allocation landed, the version did not.
      expect(await versions("n")).toEqual([1]);
      proxy.clearFaults();
      proxy.inject(listing, backend.unavailable, Number.POSITIVE_INFINITY);
      // A failed listing is an error, never "no versions".
      expect((await failure(service.get(scope, "n"))).code).toBe("unavailable");
      expect((await failure(service.listNames(scope))).code).toBe("unavailable");
    });

    it("a delay past the deadline is a timeout and publishes nothing", async () => {
      const { proxy, service } = context;
      await service.put(scope, "n", bytes("1"));
      proxy.inject(allocation, { delayMs: 1_500 });
      const late = await failure(service.put(scope, "n", bytes("late"), { timeoutMs: 200 }));
      expect(late.code).toBe("timeout");
      expect(await versions("n")).toEqual([1]);
      const controller = new AbortController();
      proxy.inject(listing, { delayMs: 1_500 });
      const aborted = service.listNames(scope, { signal: controller.signal });
      controller.abort();
      expect((await failure(aborted)).code).toBe("aborted");
      // The abandoned allocation may land and burn a version; the next put still succeeds above it.
      const next = await service.put(scope, "n", bytes("2"));
      expect(next.version).toBeGreaterThan(1);
      expect(await versions("n")).toEqual([1, next.version]);
    });

    it("a lost response to a keyed put's retry still yields one version for the key", async () => {
      const { proxy, service } = context;
      proxy.inject(publish, "drop-response");
      const first = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
      const again = await service.put(scope, "k", bytes("payload"), { idempotencyKey: "op-1" });
      expect(again).toEqual(first);
      expect(await versions("k")).toEqual([first.version]);
    });

    // Found by the seeded fault trials and the kit's fault law: the client's retry of a
    // deciding delete request whose reply was lost met "exists" (a marker) or 404 (a version),
    // the delete took it for another delete's win, and "latest" went on to the next version.
    it('a lost reply to delete("latest") never deletes a second version', async () => {
      const { proxy, service } = context;
      for (const text of ["1", "2", "3"]) await service.put(scope, "n", bytes(text));
      proxy.inject(deletion, "drop-response");
      const outcome = await service.delete(scope, "n", "latest").then(
        () => "deleted",
        (error: ArtifactError) => error.code,
      );
      expect(proxy.seen.filter(deletion).length).toBeGreaterThanOrEqual(1);
      expect(lostDeletionOutcomes(backend)).toContain(outcome);
      expect(await versions("n")).toEqual([1, 2]);
    });

    it("a lost reply to a streamed upload's completion publishes one version, whole", async () => {
      const { proxy, service, observer } = context;
      const { bytes: length, completion } = backend.streamedUpload;
      proxy.inject(completion, "drop-response");
      const upload = await service.openUpload(scope, "big");
      const data = new Uint8Array(length).map((_, i) => i % 251);
      await upload.write(data);
      const meta = await upload.finish();
      expect(proxy.seen.filter(completion).length).toBeGreaterThanOrEqual(2); // lost, retry
      expect(await versions("big")).toEqual([meta.version]);
      // Compared by digest: a deep equality of megabytes element by element takes minutes.
      expect((await observer.get(scope, "big")).sha256).toBe(sha256Hex(data));
    });

    it("a numbered delete whose deciding reply was lost deletes that version, never not_found", async () => {
      const { proxy, service } = context;
      for (const text of ["1", "2"]) await service.put(scope, "n", bytes(text));
      proxy.inject(deletion, "drop-response");
      const outcome = await service.delete(scope, "n", 1).then(
        () => "deleted",
        (error: ArtifactError) => error.code,
      );
      // A backend whose marker knows itself retried the lost request; the others sent it once.
      const retried = backend.lostDeletionReply === "deleted";
      expect(proxy.seen.filter(deletion).length).toBeGreaterThanOrEqual(retried ? 2 : 1);
      expect(lostDeletionOutcomes(backend)).toContain(outcome);
      expect(await versions("n")).toEqual([2]);
    });

    more?.(context);
  });
}

/** What a delete whose deciding reply was lost may answer on `backend`. */
function lostDeletionOutcomes(backend: FaultBackend): string[] {
  return backend.lostDeletionReply === "deleted" ? ["deleted"] : ["deleted", "unavailable"];
}

/** The proxy in front of the server and the services of the running test. */
export interface FaultContext {
  readonly proxy: FaultProxy;
  /** Through the proxy. */
  readonly service: Service;
  /** Straight to the server, past the proxy. */
  readonly observer: Service;
}
