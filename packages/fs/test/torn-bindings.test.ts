import { lstat, readdir, stat, truncate, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Scope } from "@artifact-kit/core";
import { flipFileByte } from "@artifact-kit/core/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { codeOf, tempService } from "./helpers.js";

// A keyed put links its key's binding before the version file is durable (keys.ts); a power
// cut in that round of syncs can keep the binding and tear the file, or lose the
// reservation's entry. Each test builds what such a cut leaves, by hand, and checks that the
// key binds anew at its next generation, that nothing torn is published, and that repair
// neither publishes nor counts it.

const SCOPE: Scope = { kind: "user", app: "torn", user: "u" };
const bytes = (text: string) => new TextEncoder().encode(text);
const KEYED = { idempotencyKey: "k" };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A store holding version 1 of "r", put with key "k" and then unpublished (`1.m` gone). */
async function cutShortKeyedPut() {
  const temp = await tempService({}, "torn");
  cleanups.push(temp.cleanup);
  const { service, root } = temp;
  await service.put(SCOPE, "r", bytes("first"), KEYED);
  const paths = fsArtifactPaths(root, SCOPE, "r", 1);
  await unlink(paths.metadata);
  const keys = paths.nameDir.replace(/\/names\/(?=[0-9a-f]{64}$)/, "/keys/");
  const bindings = async () => (await readdir(keys)).sort();
  /** The binding of the key's second generation. */
  const later = async () => join(keys, (await bindings()).find((n) => n.endsWith(".1.json")) ?? "");
  return { ...temp, paths, keys, bindings, later };
}

describe("torn key bindings", () => {
  const tears: [string, (path: string) => Promise<void>][] = [
    ["its bytes are gone (an empty file)", (path) => truncate(path, 0)],
    [
      "its payload holds other bytes",
      async (path) => flipFileByte(path, (await stat(path)).size - 1),
    ],
    ["it ends early", async (path) => truncate(path, (await stat(path)).size - 1)],
  ];
  for (const [what, tear] of tears) {
    it(`a binding whose version file is torn (${what}) is bound anew by a retry`, async () => {
      const { service, paths, bindings } = await cutShortKeyedPut();
      await tear(paths.reservation);
      const [first] = await bindings();
      const bound = await service.put(SCOPE, "r", bytes("second"), KEYED);
      expect(bound.version).toBe(2);
      expect((await service.get(SCOPE, "r")).data).toEqual(bytes("second"));
      expect(await service.put(SCOPE, "r", bytes("second"), KEYED)).toEqual(bound);
      expect(await bindings()).toEqual([(first as string).replace(".json", ".1.json"), first]);
      // Repair publishes nothing torn and counts nothing corrupt; it empties the torn file.
      const report = await service.repair({ minAgeMs: 0 });
      expect(report).toMatchObject({ corrupt: 0, awaitingRetry: 0, complete: true });
      expect((await service.listVersions(SCOPE, "r")).items.map((m) => m.version)).toEqual([2]);
      expect((await stat(paths.reservation)).size).toBe(0);
      expect(await service.put(SCOPE, "r", bytes("second"), KEYED)).toEqual(bound);
    });
  }

  it("a binding whose reservation's entry was lost is bound anew, even to the same number", async () => {
    const { root, paths, keys, bindings, later } = await cutShortKeyedPut();
    await unlink(paths.reservation);
    const [first] = await bindings();
    // A process started after the cut, which knows no high-water of the name.
    const service = await FsArtifactService.open({ root });
    cleanups.push(() => service.close());
    const bound = await service.put(SCOPE, "r", bytes("second"), KEYED);
    // The number was never reserved as far as the name's directory knows.
    expect(bound.version).toBe(1);
    expect((await service.get(SCOPE, "r")).data).toEqual(bytes("second"));
    expect(await bindings()).toHaveLength(2);
    // The first binding names the same number but not the file now reserved under it.
    const ino = async (path: string) => (await lstat(path)).ino;
    expect(await ino(await later())).toBe(await ino(paths.reservation));
    expect(await ino(join(keys, first as string))).not.toBe(await ino(paths.reservation));
    expect(await service.put(SCOPE, "r", bytes("second"), KEYED)).toEqual(bound);
    expect(await service.repair({ minAgeMs: 0 })).toMatchObject({ corrupt: 0, awaitingRetry: 0 });
  });

  it("a whole unpublished binding is still finished, not bound anew", async () => {
    const { service, bindings } = await cutShortKeyedPut();
    const retry = await service.put(SCOPE, "r", bytes("first"), KEYED);
    expect(retry.version).toBe(1);
    expect(await bindings()).toHaveLength(1);
    expect((await service.get(SCOPE, "r")).data).toEqual(bytes("first"));
  });

  it("a published version's file damaged under its binding is corrupt, not torn", async () => {
    const temp = await tempService({}, "torn");
    cleanups.push(temp.cleanup);
    await temp.service.put(SCOPE, "r", bytes("first"), KEYED);
    const paths = fsArtifactPaths(temp.root, SCOPE, "r", 1);
    await truncate(paths.metadata, 0);
    expect(await codeOf(temp.service.put(SCOPE, "r", bytes("first"), KEYED))).toBe(
      "corrupt_artifact",
    );
  });

  it("deleting a version bound at a later generation releases that binding's bytes", async () => {
    const { service, paths, later } = await cutShortKeyedPut();
    await truncate(paths.reservation, 0);
    const bound = await service.put(SCOPE, "r", bytes("second, a longer payload"), KEYED);
    const binding = await later();
    const whole = (await stat(binding)).size;
    await service.delete(SCOPE, "r", bound.version);
    // The binding keeps the version's head alone, so a retry still reads its record.
    expect((await stat(binding)).size).toBeLessThan(whole);
    expect(await codeOf(service.put(SCOPE, "r", bytes("second, a longer payload"), KEYED))).toBe(
      "not_found",
    );
  });
});
