import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  type Scope,
} from "@artifact-kit/core";
import { type TcpFault, TcpFaultProxy } from "@artifact-kit/test-proxy";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

type Service = ArtifactService & ArtifactTransfer;

/** What the connection-fault suite needs of an object-store adapter and its server. */
export interface ConnectionFaultBackend {
  /** The server's origin, e.g. http://127.0.0.1:4566. */
  serverEndpoint(): string;
  /** A fresh store: a service through a proxy at `via` (an origin), or straight to the server. */
  openStore(): Promise<(via?: string) => Service>;
}

const scope: Scope = { kind: "user", app: "app", user: "connection-faults" };
const data = (size: number, seed: number) => new Uint8Array(size).map((_, i) => (i + seed) % 251);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
/** "acknowledged", or the code of the ArtifactError it failed with; anything else is named. */
const outcomeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "acknowledged",
    (error: unknown) =>
      error instanceof ArtifactError ? error.code : `not an ArtifactError: ${String(error)}`,
  );
/** Cuts of a reply: at its first byte, inside the status line or headers, inside the body. */
const REPLY_CUTS: readonly TcpFault[] = [
  "drop-reply",
  { replyBytes: 12 },
  { replyBytes: 200 },
  { replyBytes: 3_000 },
  { replyBytes: 70_000 },
];
/** The most requests one call is walked over (a get's lookups, reads and retries). */
const MAX_REQUESTS = 12;

/**
 * Connections between an object-store adapter and its server broken at the TCP level, through
 * a proxy of its own: each request of a call with its reply cut at every depth or stalled,
 * every connection reset while a download is consumed slowly, and the server refusing every
 * connection for a while. A call fails with `unavailable` (or `timeout` under a deadline) or
 * succeeds whole; no fault ends the process; acknowledged versions read back and deleted ones
 * stay deleted once the connections are good again.
 */
export function describeConnectionFaults(backend: ConnectionFaultBackend) {
  describe("connections cut, reset and stalled at the TCP level", () => {
    let proxy: TcpFaultProxy;
    let service: Service;
    let observer: Service;
    const failures: string[] = [];
    const record = (error: unknown) => {
      failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    };
    beforeAll(async () => {
      const target = new URL(backend.serverEndpoint());
      proxy = await TcpFaultProxy.start({ host: target.hostname, port: Number(target.port) });
    });
    afterAll(() => proxy.close());
    beforeEach(async () => {
      failures.length = 0;
      process.on("uncaughtException", record);
      process.on("unhandledRejection", record);
      const open = await backend.openStore();
      service = open(`http://${proxy.host}:${proxy.port}`);
      observer = open();
    });
    afterEach(async () => {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
      proxy.disarmAll();
      await service.close();
      await observer.close();
    });
    /** Arms `fault` at every request from now on; the function returned lets them go. */
    const atEveryRequest = (fault: TcpFault) => {
      const armed = Array.from({ length: 64 }, () => proxy.armAtClientWrite(0, fault));
      return () => {
        for (const one of armed) one.disarm();
        proxy.cutAll();
      };
    };
    const versions = async (name: string) =>
      (await observer.listVersions(scope, name)).items.map((meta) => meta.version);

    it("every request of a get, its reply cut at every depth: unavailable or whole, never another answer", async () => {
      const bytes = data(2_500_000, 1);
      const { version } = await observer.put(scope, "cut-get", bytes);
      // By number, and "latest" (which looks the version up first).
      for (const [fault, options] of REPLY_CUTS.flatMap((cut) => [
        [cut, { version }] as const,
        [cut, {}] as const,
      ])) {
        for (let skip = 0; skip < MAX_REQUESTS; skip++) {
          const armed = proxy.armAtClientWrite(skip, fault);
          const got = await service.get(scope, "cut-get", options).then(
            (artifact) => (same(artifact.data, bytes) ? "acknowledged" : "wrong bytes"),
            (error: unknown) => (error instanceof ArtifactError ? error.code : String(error)),
          );
          const struck = armed.struck;
          armed.disarm();
          expect([fault, skip, got]).toEqual([
            fault,
            skip,
            expect.toBeOneOf(["acknowledged", "unavailable"]),
          ]);
          if (!struck) break;
        }
      }
      expect(failures).toEqual([]);
    });

    it("every request of a keyed put and of a delete, its reply cut: the retry publishes once, a delete holds", async () => {
      for (const [at, fault] of REPLY_CUTS.slice(0, 3).entries()) {
        for (let skip = 0; skip < MAX_REQUESTS; skip++) {
          const name = `cut-put-${at}-${skip}`;
          const bytes = data(4_000, skip);
          const key = `key-${at}-${skip}`;
          const armed = proxy.armAtClientWrite(skip, fault);
          const put = await outcomeOf(service.put(scope, name, bytes, { idempotencyKey: key }));
          const struck = armed.struck;
          armed.disarm();
          expect([fault, skip, put]).toEqual([
            fault,
            skip,
            expect.toBeOneOf(["acknowledged", "unavailable"]),
          ]);
          const retried = await service.put(scope, name, bytes, { idempotencyKey: key });
          expect(await versions(name)).toEqual([retried.version]);
          expect(same((await observer.get(scope, name)).data, bytes)).toBe(true);
          // A delete of that version with the same fault: done or not, never undone.
          const again = proxy.armAtClientWrite(skip, fault);
          const deleted = await outcomeOf(service.delete(scope, name, retried.version));
          again.disarm();
          expect([fault, skip, deleted]).toEqual([
            fault,
            skip,
            expect.toBeOneOf(["acknowledged", "unavailable"]),
          ]);
          if (deleted === "acknowledged") expect(await versions(name)).toEqual([]);
          await service.delete(scope, name, "all").catch((error: ArtifactError) => {
            if (error.code !== "not_found") throw error;
          });
          await service.put(scope, name, data(10, 0));
          expect((await versions(name)).length).toBe(1);
          expect((await versions(name))[0]).toBeGreaterThan(retried.version);
          if (!struck) break;
        }
      }
      expect(failures).toEqual([]);
    });

    it("every request of a get stalled under a deadline: the get ends by it", async () => {
      const bytes = data(300_000, 2);
      const { version } = await observer.put(scope, "stalled-get", bytes);
      for (let skip = 0; skip < MAX_REQUESTS; skip++) {
        const armed = proxy.armAtClientWrite(skip, "stall-reply");
        const got = await outcomeOf(
          service.get(scope, "stalled-get", { version, timeoutMs: 1_500 }),
        );
        const struck = armed.struck;
        armed.disarm();
        // A stalled connection is let go before the next trial.
        proxy.cutAll();
        if (process.env.FAULT_TRACE) console.log("stall", skip, struck, got);
        expect([skip, got]).toEqual([skip, expect.toBeOneOf(["acknowledged", "timeout"])]);
        if (!struck) break;
      }
      expect(failures).toEqual([]);
    });

    it("every request of a keyed put and of a delete stalled under a deadline: each ends, the retry publishes once", async () => {
      for (let skip = 0; skip < MAX_REQUESTS; skip++) {
        const name = `stalled-put-${skip}`;
        const bytes = data(4_000, skip);
        const options = { idempotencyKey: `key-${skip}`, timeoutMs: 1_500 };
        const armed = proxy.armAtClientWrite(skip, "stall-reply");
        const put = await outcomeOf(service.put(scope, name, bytes, options));
        const struck = armed.struck;
        armed.disarm();
        proxy.cutAll();
        // A write whose answer never came may have happened: unavailable, not timeout.
        expect([skip, put]).toEqual([
          skip,
          expect.toBeOneOf(["acknowledged", "timeout", "unavailable"]),
        ]);
        const retried = await service.put(scope, name, bytes, {
          idempotencyKey: options.idempotencyKey,
        });
        expect(await versions(name)).toEqual([retried.version]);
        const again = proxy.armAtClientWrite(skip, "stall-reply");
        const deleted = await outcomeOf(
          service.delete(scope, name, retried.version, { timeoutMs: 1_500 }),
        );
        again.disarm();
        proxy.cutAll();
        expect([skip, deleted]).toEqual([
          skip,
          expect.toBeOneOf(["acknowledged", "timeout", "unavailable"]),
        ]);
        if (process.env.FAULT_TRACE) console.log("stalled put", skip, struck, put, deleted);
        if (deleted === "acknowledged") expect(await versions(name)).toEqual([]);
        if (!struck) break;
      }
      expect(failures).toEqual([]);
    });

    it("a download consumed slowly, every connection reset between its reads", async () => {
      const bytes = data(6_000_000, 3);
      await observer.put(scope, "slow-download", bytes);
      const download = await service.openDownload(scope, "slow-download");
      const pieces: Uint8Array[] = [];
      const first = await download.read();
      if (first) pieces.push(first);
      const reading = await outcomeOf(
        (async () => {
          for (;;) {
            proxy.cutAll();
            // A reset lands while nothing reads: the stream must hold it for the next read.
            await new Promise((resolve) => setImmediate(resolve));
            const piece = await download.read();
            if (!piece) return;
            pieces.push(piece);
          }
        })(),
      );
      expect(reading).toBeOneOf(["acknowledged", "unavailable"]);
      if (reading === "acknowledged") expect(same(Buffer.concat(pieces), bytes)).toBe(true);
      await download.cancel();
      expect(failures).toEqual([]);
    });

    it("a download whose next read stalls under a deadline: read() ends with timeout", async () => {
      const bytes = data(6_000_000, 4);
      await observer.put(scope, "stalled-download", bytes);
      const download = await service.openDownload(scope, "stalled-download", { timeoutMs: 4_000 });
      const first = await download.read();
      expect(first?.byteLength).toBeGreaterThan(0);
      // The next request this download sends (its next range) gets no answer.
      proxy.armAtClientWrite(0, "stall-reply");
      const rest = await outcomeOf(
        (async () => {
          while ((await download.read()) !== undefined);
        })(),
      );
      proxy.cutAll();
      expect(rest).toBeOneOf(["acknowledged", "timeout"]);
      await download.cancel();
      expect(failures).toEqual([]);
    });

    it("an upload with every connection reset between writes, then a keyed retry", async () => {
      const bytes = data(7_000_000, 5);
      const upload = await service.openUpload(scope, "cut-upload", { idempotencyKey: "u" });
      await upload.write(bytes.subarray(0, 3_500_000));
      proxy.cutAll();
      const outcome = await outcomeOf(
        (async () => {
          await upload.write(bytes.subarray(3_500_000));
          return upload.finish();
        })(),
      );
      expect(outcome).toBeOneOf(["acknowledged", "unavailable"]);
      const again = await service.openUpload(scope, "cut-upload", { idempotencyKey: "u" });
      await again.write(bytes);
      const meta = await again.finish();
      expect(await versions("cut-upload")).toEqual([meta.version]);
      expect(same((await observer.get(scope, "cut-upload")).data, bytes)).toBe(true);
      expect(failures).toEqual([]);
    });

    it("an upload aborted while every request stalls: the abort ends, its clean-up bounded", async () => {
      const owner = new AbortController();
      const upload = await service.openUpload(scope, "stalled-abort", { signal: owner.signal });
      // Enough to stage on the server: an S3 part is 5 MiB at least.
      await upload.write(data(7_000_000, 9));
      // Every request from here on (the clean-up's, and any retry of it) gets no answer.
      const release = atEveryRequest("stall-reply");
      owner.abort(new Error("the upload's owner went away"));
      expect(await outcomeOf(upload.abort())).toBe("acknowledged");
      release();
      expect(await versions("stalled-abort")).toEqual([]);
      expect(failures).toEqual([]);
    });

    it("an upload whose connection stops taking bytes under a deadline: its writes end by it, abort() too", async () => {
      const upload = await service.openUpload(scope, "held-upload", { timeoutMs: 4_000 });
      await upload.write(data(1_000_000, 10));
      // From here on the proxy takes no more bytes from any connection (the kernel's buffers
      // fill, and the client's stream stops draining).
      const release = atEveryRequest({ delayMs: 600_000 });
      const writing = await outcomeOf(
        (async () => {
          for (let piece = 0; piece < 64; piece++) await upload.write(data(1_000_000, piece));
          return upload.finish();
        })(),
      );
      expect(writing).toBeOneOf(["timeout", "unavailable"]);
      expect(await outcomeOf(upload.abort())).toBe("acknowledged");
      release();
      expect(await versions("held-upload")).toEqual([]);
      expect(failures).toEqual([]);
    });

    it("the server gone (every connection reset and refused), then back: nothing acknowledged lost, nothing deleted back", async () => {
      const kept = await service.put(scope, "down", data(1_000, 6));
      const doomed = await service.put(scope, "down", data(1_000, 7));
      await service.delete(scope, "down", doomed.version);
      const download = await service.openDownload(scope, "down");
      proxy.cutAll();
      proxy.refuseNext(1_000_000);
      const calls = await Promise.all([
        outcomeOf(service.put(scope, "down", data(10, 8))),
        outcomeOf(service.get(scope, "down")),
        outcomeOf(service.delete(scope, "down", kept.version)),
        outcomeOf(service.listNames(scope)),
        outcomeOf(download.read()),
      ]);
      for (const outcome of calls) expect(outcome).toBe("unavailable");
      await download.cancel();
      proxy.disarmAll();
      expect(await versions("down")).toEqual([kept.version]);
      expect(same((await service.get(scope, "down")).data, data(1_000, 6))).toBe(true);
      expect(await outcomeOf(service.get(scope, "down", { version: doomed.version }))).toBe(
        "not_found",
      );
      expect(failures).toEqual([]);
    });
  });
}
