import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const roots = new Set<string>();
afterAll(async () => {
  await Promise.all([...roots].map((root) => rm(root, { recursive: true, force: true })));
});

/** A fresh directory under the OS temp dir, removed after the file's tests. */
export async function tempRoot(): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "artifact-kit-sharded-")));
  roots.add(root);
  return root;
}
