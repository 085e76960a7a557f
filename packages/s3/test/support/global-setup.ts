import { fileURLToPath } from "node:url";
import { httpAnswers, testServerSetup } from "@artifact-kit/test-proxy";

declare module "vitest" {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

/** The server S3_ENDPOINT names, or moto started by scripts/start-moto.sh. */
export default testServerSetup("s3Endpoint", {
  variable: "S3_ENDPOINT",
  script: fileURLToPath(new URL("../../scripts/start-moto.sh", import.meta.url)),
  stateDirVariable: "MOTO_STATE_DIR",
  answers: (endpoint) => httpAnswers(endpoint, (status) => status < 500),
});
