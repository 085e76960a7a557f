import { fileURLToPath } from "node:url";
import { httpAnswers, startTestServer } from "@artifact-kit/test-proxy";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

/** The server S3_ENDPOINT names, or moto started by scripts/start-moto.sh. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer({
    variable: "S3_ENDPOINT",
    script: fileURLToPath(new URL("../../scripts/start-moto.sh", import.meta.url)),
    stateDirVariable: "MOTO_STATE_DIR",
    answers: (endpoint) => httpAnswers(endpoint, (status) => status < 500),
  });
  project.provide("s3Endpoint", server.value);
  return server.stop;
}
