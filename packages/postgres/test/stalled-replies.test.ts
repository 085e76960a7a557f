import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PostgresArtifactService } from "../src/index.js";
import { freshService } from "./support/database.js";
import { data, outcomeOf, same } from "./support/outcomes.js";
import { type ProcessWatch, type Proxied, startProxied, watchProcess } from "./support/proxied.js";

// Replies that never come (a server or network that froze with the answer in flight) and
// replies cut in the middle, through a TCP proxy in front of the real server. A call with a
// deadline must end by it whatever the connection does: `timeout` when nothing was published,
// `unavailable` when the statement may have committed. No stall or cut may end the process.
const scope = { kind: "app", app: "stalled-replies" } as const;

let proxied: Proxied;
let direct: Awaited<ReturnType<typeof freshService>>;
let service: PostgresArtifactService;
let watch: ProcessWatch;
beforeAll(async () => {
  proxied = await startProxied();
  direct = await freshService();
});
beforeEach(async () => {
  watch = watchProcess();
  // A pool of its own per test: no connection a test cut is handed to the next one.
  service = await PostgresArtifactService.open({ pool: proxied.pool(4), schema: direct.schema });
});
afterEach(async () => {
  watch.stop();
  proxied.proxy.disarmAll();
  await service.close();
});
afterAll(async () => {
  await proxied.stop();
  await direct.dispose();
});

describe("a reply that never arrives, under a deadline", () => {
  test("get: fails with timeout, and the pool serves the next call", async () => {
    const { version } = await direct.service.put(scope, "stalled-get", data(3_000, 1));
    const armed = proxied.proxy.armAtClientText("ak_getVersion_", "stall-reply");
    const outcome = await outcomeOf(
      service.get(scope, "stalled-get", { version, timeoutMs: 1_000 }),
    );
    expect(armed.struck).toBe(true);
    expect(outcome).toBe("timeout");
    expect(same((await service.get(scope, "stalled-get", { version })).data, data(3_000, 1))).toBe(
      true,
    );
    expect(watch.failures).toEqual([]);
  });

  test("head and listVersions: fail with timeout", async () => {
    await direct.service.put(scope, "stalled-head", data(10, 2));
    proxied.proxy.armAtClientText("ak_headLatest_", "stall-reply");
    expect(await outcomeOf(service.head(scope, "stalled-head", { timeoutMs: 1_000 }))).toBe(
      "timeout",
    );
    proxied.proxy.armAtClientText("ak_listVersions_", "stall-reply");
    expect(await outcomeOf(service.listVersions(scope, "stalled-head", { timeoutMs: 1_000 }))).toBe(
      "timeout",
    );
    expect(watch.failures).toEqual([]);
  });

  test("put whose reply stalls: ends by its deadline, never `timeout` for a version it published", async () => {
    const name = "stalled-put";
    const bytes = data(2_000, 3);
    const armed = proxied.proxy.armAtClientText("ak_put_", "stall-reply");
    const outcome = await outcomeOf(
      service.put(scope, name, bytes, { timeoutMs: 1_000, idempotencyKey: "stalled-put" }),
    );
    expect(armed.struck).toBe(true);
    expect(["timeout", "unavailable"]).toContain(outcome);
    // The statement reached the server; whatever it did is settled once its backend is idle.
    const published = (await direct.service.listVersions(scope, name)).items;
    if (outcome === "timeout") expect(published).toEqual([]);
    // The keyed retry answers the one version there is, or publishes it.
    const retried = await service.put(scope, name, bytes, { idempotencyKey: "stalled-put" });
    expect((await direct.service.listVersions(scope, name)).items.map((m) => m.version)).toEqual([
      retried.version,
    ]);
    expect(watch.failures).toEqual([]);
  });

  test("delete whose reply stalls: ends by its deadline; a timeout deleted nothing", async () => {
    const name = "stalled-delete";
    const { version } = await direct.service.put(scope, name, data(10, 4));
    proxied.proxy.armAtClientText("ak_delete_", "stall-reply");
    const outcome = await outcomeOf(service.delete(scope, name, version, { timeoutMs: 1_000 }));
    expect(["timeout", "unavailable"]).toContain(outcome);
    const live = (await direct.service.listVersions(scope, name)).items;
    if (outcome === "timeout") expect(live.map((m) => m.version)).toEqual([version]);
    expect(watch.failures).toEqual([]);
  });

  test("a download whose block read stalls: read() fails with timeout", async () => {
    const bytes = data(2_500_000, 5);
    await direct.service.put(scope, "stalled-download", bytes);
    const download = await service.openDownload(scope, "stalled-download", { timeoutMs: 3_000 });
    proxied.proxy.armAtClientText("ak_block_", "stall-reply");
    const reading = async () => {
      while ((await download.read()) !== undefined);
    };
    expect(await outcomeOf(reading())).toBe("timeout");
    await download.cancel();
    expect(watch.failures).toEqual([]);
  });
});

describe("a reply cut in the middle", () => {
  test.each([1, 7, 300, 70_000, 1_100_000])(
    "get of 2.5 MB cut after %i reply bytes: unavailable, and the next get is whole",
    async (replyBytes) => {
      const bytes = data(2_500_000, replyBytes % 13);
      const name = `cut-get-${replyBytes}`;
      const { version } = await direct.service.put(scope, name, bytes);
      const armed = proxied.proxy.armAtClientText("ak_getVersion_", { replyBytes });
      expect(await outcomeOf(service.get(scope, name, { version }))).toBe("unavailable");
      expect(armed.struck).toBe(true);
      expect(same((await service.get(scope, name, { version })).data, bytes)).toBe(true);
      expect(watch.failures).toEqual([]);
    },
  );

  test.each([1, 20, 60])(
    "put cut after %i reply bytes: unavailable, and the keyed retry answers one readable version",
    async (replyBytes) => {
      const name = `cut-put-${replyBytes}`;
      const bytes = data(5_000, replyBytes);
      const key = `cut-put-${replyBytes}`;
      const armed = proxied.proxy.armAtClientText("ak_put_", { replyBytes });
      expect(await outcomeOf(service.put(scope, name, bytes, { idempotencyKey: key }))).toBe(
        "unavailable",
      );
      expect(armed.struck).toBe(true);
      const retried = await service.put(scope, name, bytes, { idempotencyKey: key });
      expect(same((await direct.service.get(scope, name)).data, bytes)).toBe(true);
      expect((await direct.service.listVersions(scope, name)).items.map((m) => m.version)).toEqual([
        retried.version,
      ]);
      expect(watch.failures).toEqual([]);
    },
  );
});

describe("connections dropped while a stream is open", () => {
  test("a download consumed slowly: every connection cut between reads", async () => {
    const bytes = data(3_500_000, 6);
    await direct.service.put(scope, "cut-download", bytes);
    const download = await service.openDownload(scope, "cut-download");
    const first = await download.read();
    expect(first?.byteLength).toBeGreaterThan(0);
    proxied.proxy.cutAll();
    // The cut connections were idle in the pool: the next read gets a fresh one or fails
    // with unavailable; either way what it returns is verified.
    const rest: Uint8Array[] = [];
    const outcome = await outcomeOf(
      (async () => {
        for (let piece = await download.read(); piece; piece = await download.read()) {
          rest.push(piece);
          proxied.proxy.cutAll();
        }
      })(),
    );
    expect(["acknowledged", "unavailable"]).toContain(outcome);
    if (outcome === "acknowledged") {
      expect(same(Buffer.concat([first as Uint8Array, ...rest]), bytes)).toBe(true);
    }
    await download.cancel();
    expect(watch.failures).toEqual([]);
  });

  test("an upload: every connection cut between writes, then a keyed retry publishes once", async () => {
    const name = "cut-upload";
    const bytes = data(2_600_000, 7);
    const upload = await service.openUpload(scope, name, { idempotencyKey: "cut-upload" });
    await upload.write(bytes.subarray(0, 1_300_000));
    proxied.proxy.cutAll();
    const outcome = await outcomeOf(
      (async () => {
        await upload.write(bytes.subarray(1_300_000));
        return upload.finish();
      })(),
    );
    expect(["acknowledged", "unavailable"]).toContain(outcome);
    const again = await service.openUpload(scope, name, { idempotencyKey: "cut-upload" });
    await again.write(bytes);
    const meta = await again.finish();
    expect(
      same((await direct.service.get(scope, name, { version: meta.version })).data, bytes),
    ).toBe(true);
    expect((await direct.service.listVersions(scope, name)).items).toHaveLength(1);
    expect(watch.failures).toEqual([]);
  });

  test("close() while calls are in flight and their connections are cut", async () => {
    const own = await PostgresArtifactService.open({
      pool: proxied.pool(3),
      schema: direct.schema,
    });
    await own.put(scope, "closing", data(100, 8));
    const calls = [
      own.put(scope, "closing", data(1_500_000, 9)),
      own.get(scope, "closing", { version: 1 }),
      own.listVersions(scope, "closing"),
    ].map(outcomeOf);
    proxied.proxy.cutAll();
    await own.close();
    proxied.proxy.cutAll();
    for (const outcome of await Promise.all(calls)) {
      expect(["acknowledged", "unavailable", "closed"]).toContain(outcome);
    }
    expect(await outcomeOf(own.get(scope, "closing"))).toBe("closed");
    expect(watch.failures).toEqual([]);
  });
});
