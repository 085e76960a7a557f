import { fileURLToPath } from "node:url";
import { httpAnswers, startTestServer } from "@artifact-kit/test-proxy";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    azureConnectionString: string;
  }
}

/** The service AZURE_STORAGE_CONNECTION_STRING names, or Azurite started by scripts/start-azurite.sh. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer({
    variable: "AZURE_STORAGE_CONNECTION_STRING",
    script: fileURLToPath(new URL("../../scripts/start-azurite.sh", import.meta.url)),
    stateDirVariable: "AZURITE_STATE_DIR",
    // Any answer from the blob endpoint (unsigned: refused, but answered).
    answers: async (connectionString) => {
      const endpoint = /BlobEndpoint=([^;]+)/.exec(connectionString)?.[1];
      if (!endpoint) throw new Error("it names no BlobEndpoint");
      await httpAnswers(`${endpoint}?comp=list`, (status) => status < 500);
    },
  });
  project.provide("azureConnectionString", server.value);
  return server.stop;
}
