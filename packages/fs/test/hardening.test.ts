import { execFileSync } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { type DownloadOptions, type Scope, scopeDigest, sha256Hex } from "@artifact-kit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { codeOf, tempService, toLegacyLayout } from "./helpers.js";
import { walk } from "./processes.js";

// Defects found by outside testing (issue 16: 1, 4, 6, 7), each pinned by a test that failed
// before its fix.

const SCOPE: Scope = { kind: "user", app: "hardening", user: "u" };
const OTHER: Scope = { kind: "app", app: "bystander" };
const NAME = "doc";
const bytes = (text: string) => new TextEncoder().encode(text);

let service: FsArtifactService;
let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const temp = await tempService({}, "hardening");
  ({ service, root, cleanup } = temp);
  await service.put(SCOPE, NAME, bytes("version one"));
  await service.put(SCOPE, NAME, bytes("version two"));
});
afterEach(() => cleanup());

const paths = (version: number) => fsArtifactPaths(root, SCOPE, NAME, version);

async function download(options: DownloadOptions = {}) {
  const source = await service.openDownload(SCOPE, NAME, options);
  const chunks: Uint8Array[] = [];
  for (let chunk = await source.read(); chunk; chunk = await source.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Puts a FIFO where a store file was: opening it for reading would wait for a writer. */
async function plantFifo(path: string): Promise<void> {
  await rm(path);
  execFileSync("mkfifo", [path]);
}

describe("a FIFO in place of a version's file (issue 16.4)", () => {
  // Eight refused reads: twice libuv's default pool of four threads, any of which a blocking
  // open would hold for good.
  it.each([
    ["metadata", (v: number) => paths(v).metadata],
    ["data", (v: number) => paths(v).data],
    ["reservation", (v: number) => paths(v).reservation],
  ])(
    "in place of the %s file is corrupt_artifact, and blocks nothing",
    async (kind, pathOf) => {
      // A version file has no data file, and reads never open its reservation: those two
      // are files of a store written before version files.
      if (kind !== "metadata") await toLegacyLayout(paths(2));
      await plantFifo(pathOf(2));
      const reads: Promise<unknown>[] = [];
      for (let i = 0; i < 4; i++) {
        reads.push(download({ version: 2 }));
        if (kind !== "reservation") reads.push(service.get(SCOPE, NAME, { version: 2 }));
        else reads.push(download());
      }
      expect(new Set(await Promise.all(reads.map(codeOf)))).toEqual(new Set(["corrupt_artifact"]));
      if (kind === "metadata") {
        expect(await codeOf(service.listVersions(SCOPE, NAME))).toBe("corrupt_artifact");
      }
      // The process's file operations still run: other scopes, and the intact version.
      await service.put(OTHER, "x", bytes("still here"));
      expect((await service.get(OTHER, "x")).data).toEqual(bytes("still here"));
      expect((await service.get(SCOPE, NAME, { version: 1 })).data).toEqual(bytes("version one"));
    },
    10_000,
  );
});

describe("a directory in place of a payload (issue 16.6)", () => {
  it("delete goes on, and repair reports what it cannot remove and goes on", async () => {
    // Payload files are those of a store written before version files.
    await toLegacyLayout(paths(2));
    await rm(paths(2).data);
    await mkdir(join(paths(2).data, "inside"), { recursive: true });
    await service.delete(SCOPE, NAME, 2);
    expect((await service.get(SCOPE, NAME)).version).toBe(1);
    // A second planted directory, under a version deleted with "all".
    await service.put(SCOPE, NAME, bytes("version three"));
    await toLegacyLayout(paths(3));
    await rm(paths(3).data);
    await mkdir(paths(3).data);
    await service.delete(SCOPE, NAME, "all");
    expect(await codeOf(service.get(SCOPE, NAME))).toBe("not_found");
    // A staging leftover repair must still remove after meeting the directories.
    const stagingDir = join(root, "scopes", scopeDigest(SCOPE), "staging");
    await writeFile(join(stagingDir, "leftover.d"), "x");
    const report = await service.repair({ minAgeMs: 0 });
    expect([...report.unremovable].sort()).toEqual(
      [paths(2).data, paths(3).data].map((path) => relative(root, path)).sort(),
    );
    expect(report.removed).toBeGreaterThanOrEqual(1);
    expect(report.complete).toBe(true);
    expect((await walk(root)).some((e) => e.path.endsWith("leftover.d"))).toBe(false);
    // The name stays usable above the old high-water.
    expect((await service.put(SCOPE, NAME, bytes("four"))).version).toBe(4);
  });
});

describe("a tampered sha256 in a version's metadata (issue 16.7)", () => {
  it("fails get and every download alike with corrupt_artifact", async () => {
    // TODO(version file): the same tampering inside a version file.
    await toLegacyLayout(paths(2));
    const record = JSON.parse(await readFile(paths(2).metadata, "utf8"));
    record.sha256 = sha256Hex(bytes("something else"));
    await writeFile(paths(2).metadata, JSON.stringify(record));
    expect(await codeOf(service.get(SCOPE, NAME))).toBe("corrupt_artifact");
    expect(await codeOf(download())).toBe("corrupt_artifact");
    expect(await codeOf(download({ range: { offset: 3, length: 4 } }))).toBe("corrupt_artifact");
    expect((await download({ version: 1 })).toString()).toBe("version one");
  });
});

describe("fractional timeoutMs (issues 16.1 and 33.12)", () => {
  it("is rounded up, never refused nor handed raw to a timer, on every operation", async () => {
    // A timeout computed from a clock: once a raw RangeError from a timer (16.1), then
    // invalid_argument (33.12); a deadline is never shorter than asked.
    const timeoutMs = 1000.5;
    const upload = async () => {
      const sink = await service.openUpload(SCOPE, "streamed", { timeoutMs });
      await sink.write(bytes("y"));
      return sink.finish();
    };
    const calls: [string, () => Promise<unknown>][] = [
      ["put", () => service.put(SCOPE, "new", bytes("x"), { timeoutMs })],
      ["upload", upload],
      ["get", () => service.get(SCOPE, NAME, { timeoutMs })],
      ["head", () => service.head(SCOPE, NAME, { timeoutMs })],
      ["download", () => download({ timeoutMs })],
      ["listNames", () => service.listNames(SCOPE, { timeoutMs })],
      ["listVersions", () => service.listVersions(SCOPE, NAME, { timeoutMs })],
      ["list", () => service.list(SCOPE, { timeoutMs })],
      ["delete", () => service.delete(SCOPE, NAME, 1, { timeoutMs })],
    ];
    for (const [operation, call] of calls) {
      expect([operation, await codeOf(call())]).toEqual([operation, "ok"]);
    }
    const names = (await service.listNames(SCOPE)).items;
    expect(new Set(names)).toEqual(new Set([NAME, "new", "streamed"]));
    expect((await service.get(SCOPE, NAME, { version: 1 }).catch((e) => e)).code).toBe("not_found");
  });
});
