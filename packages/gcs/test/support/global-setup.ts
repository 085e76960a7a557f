import { fileURLToPath } from "node:url";
import { httpAnswers, testServerSetup } from "@artifact-kit/test-proxy";

declare module "vitest" {
  export interface ProvidedContext {
    gcsEndpoint: string;
  }
}

const given = process.env.STORAGE_EMULATOR_HOST?.replace(/\/storage\/v1\/?$/, "");
// The client would take the variable as its whole base URL; tests pass apiEndpoint instead.
delete process.env.STORAGE_EMULATOR_HOST;

/** The emulator STORAGE_EMULATOR_HOST names, or fake-gcs-server started by scripts/start-emulator.sh. */
export default testServerSetup("gcsEndpoint", {
  variable: "STORAGE_EMULATOR_HOST",
  given,
  script: fileURLToPath(new URL("../../scripts/start-emulator.sh", import.meta.url)),
  stateDirVariable: "FAKE_GCS_STATE_DIR",
  answers: (endpoint) =>
    httpAnswers(`${endpoint}/storage/v1/b?project=artifact-kit`, (status) => status === 200),
});
