import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Scope } from "@artifact-kit/core";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { codeOf } from "./helpers.js";
import { walk } from "./processes.js";

// The store lives in outer/root; outer also holds a sentinel file. Whatever the names and
// scope ids, nothing may appear, change or vanish outside root, and every path inside root
// must follow the layout's grammar (fixed names, hex digests, numbers), never a user string.

let outer: string;
let root: string;

beforeEach(async () => {
  outer = await realpath(await mkdtemp(join(tmpdir(), "artifact-kit-hostile-")));
  root = join(outer, "root");
  await mkdir(root);
  await writeFile(join(outer, "sentinel"), "untouched");
});
afterEach(() => rm(outer, { recursive: true, force: true }));

const HEX = "[0-9a-f]{64}";
const LAYOUT = [
  "staging",
  "scope-claims",
  "scope-claims/\\d+",
  "scopes",
  `scopes/${HEX}\\.json`,
  `scopes/${HEX}`,
  `scopes/${HEX}/(staging|name-claims|names|name-log|name-index)`,
  `scopes/${HEX}/name-claims/\\d+`,
  `scopes/${HEX}/name-log/${HEX}(\\.([0-9a-f]{2}){1,92})?\\.json`,
  `scopes/${HEX}/name-index/[1-9]\\d*\\.idx`,
  `scopes/${HEX}/names/${HEX}\\.json`,
  `scopes/${HEX}/names/${HEX}`,
  `scopes/${HEX}/names/${HEX}/[1-9]\\d*\\.[rdmt]`,
].map((pattern) => new RegExp(`^${pattern}$`));

async function expectConfined(): Promise<void> {
  const outside = await walk(outer);
  expect(
    outside
      .filter((e) => !e.path.startsWith("root/"))
      .map((e) => e.path)
      .sort(),
  ).toEqual(["root", "sentinel"]);
  expect(await readFile(join(outer, "sentinel"), "utf8")).toBe("untouched");
  for (const entry of await walk(root)) {
    expect(entry.kind === "file" || entry.kind === "dir", `${entry.path} is a ${entry.kind}`).toBe(
      true,
    );
    expect(
      LAYOUT.some((pattern) => pattern.test(entry.path)),
      `${entry.path} is not a layout path`,
    ).toBe(true);
    // No staging leftovers after successful operations.
    expect(entry.path.includes("staging/"), entry.path).toBe(false);
  }
}

const HOSTILE = [
  "..",
  "../",
  "../..",
  "../../etc/passwd",
  "/etc/passwd",
  "/",
  "//",
  "a/../../b",
  "./a",
  "a/./b",
  "..\\..\\windows",
  "C:\\Windows\\system32",
  "\\\\server\\share",
  "~",
  "~/.ssh/id_rsa",
  "$HOME",
  "%2e%2e%2f",
  ".git",
  "NUL",
  "con.txt",
  "a\0b",
  "\0",
  "",
  " ",
  "\n",
  "a".repeat(1024),
  "a".repeat(1025),
  "é".repeat(512),
  "é".repeat(513),
  "é",
  "e\u0301",
  "\u212b",
  "\u00c5",
  "A\u030a",
  "\ud800",
  "😀/..",
  "staging",
  "scopes",
  "names",
  "1.m",
];

const hostileText = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc
    .array(fc.constantFrom("..", ".", "", "/", "\\", "a", "\0", "é", "😀", "%2e"), {
      maxLength: 12,
    })
    .map((parts) => parts.join("")),
  fc.constantFrom(...HOSTILE).map((text) => `${outerMarker()}${text}`),
);

/** An absolute path into the outer directory: if it ever became a path, the walk would see it. */
const outerMarker = () => `${outer}/escaped/`;

const hostileScope: fc.Arbitrary<unknown> = fc.oneof(
  hostileText.map((app) => ({ kind: "app", app })),
  fc.tuple(hostileText, hostileText).map(([app, user]) => ({ kind: "user", app, user })),
  fc
    .tuple(hostileText, hostileText, hostileText)
    .map(([app, user, session]) => ({ kind: "session", app, user, session })),
);

describe("hostile names and scope ids", () => {
  it("never create or touch anything outside root, and round-trip when valid", async () => {
    const service = await FsArtifactService.open({ root });
    try {
      await fc.assert(
        fc.asyncProperty(
          hostileScope,
          hostileText,
          fc.uint8Array({ maxLength: 16 }),
          async (scope, name, data) => {
            const put = await codeOf(service.put(scope as Scope, name, data));
            expect(["ok", "invalid_argument"]).toContain(put);
            for (const read of [
              service.get(scope as Scope, name),
              service.listVersions(scope as Scope, name),
              service.listNames(scope as Scope, { cursor: name }),
            ]) {
              expect(["ok", "invalid_argument", "not_found"]).toContain(await codeOf(read));
            }
            if (put === "ok") {
              const artifact = await service.get(scope as Scope, name);
              expect(artifact.name).toBe(name);
              expect(Buffer.from(artifact.data).equals(Buffer.from(data))).toBe(true);
              expect((await service.listNames(scope as Scope)).items).toContain(name);
              await service.delete(scope as Scope, name, "all");
            } else {
              expect(await codeOf(service.delete(scope as Scope, name, "all"))).toBe(
                "invalid_argument",
              );
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      await service.close();
    }
    await expectConfined();
  });

  it("names that differ only in Unicode normalization are distinct artifacts", async () => {
    const service = await FsArtifactService.open({ root });
    const scope: Scope = { kind: "app", app: "\u00e9" };
    const variants = ["\u00e9", "e\u0301", "\u212b", "\u00c5", "A\u030a"];
    try {
      for (const [i, name] of variants.entries()) {
        await service.put(scope, name, new Uint8Array([i]));
        // A scope id in the other normalization form is another scope.
        await service.put({ kind: "app", app: "e\u0301" }, name, new Uint8Array([100 + i]));
      }
      for (const [i, name] of variants.entries()) {
        const artifact = await service.get(scope, name);
        expect(artifact.version).toBe(1);
        expect([...artifact.data]).toEqual([i]);
        expect([...(await service.get({ kind: "app", app: "e\u0301" }, name)).data]).toEqual([
          100 + i,
        ]);
      }
      expect((await service.listNames(scope)).items).toHaveLength(variants.length);
    } finally {
      await service.close();
    }
    await expectConfined();
  });

  it("a 1,024-byte name is stored; 1,025 bytes is invalid_argument and writes nothing", async () => {
    const service = await FsArtifactService.open({ root });
    const scope: Scope = { kind: "user", app: "a".repeat(256), user: "😀".repeat(64) };
    try {
      const longest = `${"x/".repeat(300)}${"é".repeat(212)}`;
      expect(Buffer.byteLength(longest)).toBe(1024);
      await service.put(scope, longest, new Uint8Array([1]));
      expect((await service.get(scope, longest)).name).toBe(longest);
      expect(await codeOf(service.put(scope, `${longest}x`, new Uint8Array([1])))).toBe(
        "invalid_argument",
      );
      expect((await service.listNames(scope)).items).toEqual([longest]);
      // Every path stays short: the name is a digest on disk, whatever its length.
      for (const entry of await walk(root)) expect(entry.path.length).toBeLessThan(220);
    } finally {
      await service.close();
    }
    await expectConfined();
  });
});

describe("root", () => {
  const open = (options: unknown) => FsArtifactService.open(options as { root: string });

  it("a root that is a symbolic link is refused", async () => {
    const link = join(outer, "link");
    await symlink(root, link);
    expect(await codeOf(open({ root: link }))).toBe("invalid_argument");
    await expect(open({ root: link })).rejects.toThrow(/symbolic link/);
    expect(await walk(root)).toEqual([]);
  });

  it("a relative, missing or non-directory root is refused", async () => {
    const file = join(outer, "sentinel");
    for (const bad of [
      relative(process.cwd(), root),
      "relative/path",
      "",
      join(outer, "missing"),
      file,
      `${root}\0`,
      42,
      undefined,
    ]) {
      expect(await codeOf(open({ root: bad })), String(bad)).toBe("invalid_argument");
    }
    expect(await codeOf(open({}))).toBe("invalid_argument");
    expect(await walk(root)).toEqual([]);
  });

  it("a root reached through a symbolic parent is used by its real path", async () => {
    const parentLink = join(outer, "parent-link");
    await symlink(outer, parentLink);
    const service = await open({ root: join(parentLink, "root") });
    expect(service.root).toBe(root);
    await service.close();
  });
});
