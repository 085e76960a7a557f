import { fileURLToPath } from "node:url";
import { httpAnswers, testServerSetup } from "@artifact-kit/test-proxy";

declare module "vitest" {
  export interface ProvidedContext {
    azureConnectionString: string;
  }
}

/** The service AZURE_STORAGE_CONNECTION_STRING names, or Azurite started by scripts/start-azurite.sh. */
export default testServerSetup("azureConnectionString", {
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
