import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { FsArtifactService } from "@artifact-kit/fs";
import {
  type BaseArtifactService,
  InMemoryArtifactService,
  LogLevel,
  setLogLevel,
} from "@google/adk";
import { inject } from "vitest";
import { toAdkArtifactService } from "../../src/index.js";

// ADK logs a warning for every missing version it is asked for; the tests ask on purpose.
setLogLevel(LogLevel.ERROR);

/** A fresh directory under the run's temp directory, removed when the run ends. */
export function tempRoot(): Promise<string> {
  return mkdtemp(join(inject("tempParent"), "root-"));
}

export interface BridgedFs {
  readonly adk: BaseArtifactService;
  readonly service: FsArtifactService;
  readonly root: string;
}

/** Our fs adapter on a fresh root, seen through the bridge; closed with `service.close()`. */
export async function bridgedFs(root?: string): Promise<BridgedFs> {
  const dir = root ?? (await tempRoot());
  const service = await FsArtifactService.open({ root: dir });
  return { adk: toAdkArtifactService(service), service, root: dir };
}

/** A BaseArtifactService under test and how to release it. */
export interface Subject {
  readonly adk: BaseArtifactService;
  readonly close: () => Promise<void>;
}

/** The two services every shared test runs against. */
export const SUBJECTS: ReadonlyArray<readonly [string, () => Promise<Subject>]> = [
  [
    "artifact-kit fs through the bridge",
    async () => {
      const { adk, service } = await bridgedFs();
      return { adk, close: () => service.close() };
    },
  ],
  [
    "ADK's InMemoryArtifactService",
    async () => ({ adk: new InMemoryArtifactService(), close: async () => {} }),
  ],
];
