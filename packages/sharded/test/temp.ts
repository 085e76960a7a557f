import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** Removing many roots of real files takes as long as the disk does: a limit for a slow one. */
const CLEANUP_TIMEOUT_MS = 300_000;

const roots = new Set<string>();
afterAll(async () => {
  await Promise.all([...roots].map((root) => removeRoot(root)));
}, CLEANUP_TIMEOUT_MS);

/** A fresh directory under the OS temp dir, removed by removeRoot or else after the file's tests. */
export async function tempRoot(): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "artifact-kit-sharded-")));
  roots.add(root);
  return root;
}

/** Removes a root from tempRoot now (a subject's cleanup), so that afterAll has less to do. */
export async function removeRoot(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
  roots.delete(root);
}
