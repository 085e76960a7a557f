import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** One directory for every test root of the run, removed when the run ends. */
    tempParent: string;
  }
}

/** Global setup: the run's temp directory, shared with the test files through inject(). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), "artifact-kit-adk-")));
  project.provide("tempParent", parent);
  return () => rm(parent, { recursive: true, force: true });
}
