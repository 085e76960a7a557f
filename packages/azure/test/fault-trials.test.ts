import {
  type FaultTrialReport,
  runFaultTrials,
  trialOptionsFromEnv,
} from "@artifact-kit/fault-trials";
import { describe, expect, it } from "vitest";
import { AzureArtifactService } from "../src/index.js";
import { SERVER_BUSY } from "./support/fault-proxy.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

const KiB = 1024;

// Seeded trials: put, streamed upload (now and then above one block), keyed put and its retry,
// delete of a version, of latest and of all, and repair(), each with a lost reply, a 503
// ServerBusy or a held request armed on one of its requests; then a clean client checks that
// nothing acknowledged is lost and nothing deleted comes back (see fault-trials' checkLane).
const options = trialOptionsFromEnv();

describe("seeded fault trials", () => {
  it(
    "keep every promise through lost replies, 503s and held requests",
    async () => {
      const blockBytes = 128 * KiB;
      const report: FaultTrialReport = await runFaultTrials(
        {
          backend: "azure (Azurite)",
          serverEndpoint: blobOrigin(),
          unavailable: SERVER_BUSY,
          largeUploadBytes: blockBytes + 17,
          async openLane(proxyEndpoint) {
            const { containerName } = await freshContainer();
            return {
              subject: new AzureArtifactService({
                container: containerClient(containerName, proxyEndpoint),
                blockBytes,
              }),
              observer: new AzureArtifactService({
                container: containerClient(containerName),
                blockBytes,
              }),
            };
          },
        },
        options,
      );
      console.info(JSON.stringify({ ...report, violations: report.violations.length }));
      expect(report.violations).toEqual([]);
      expect(report.unhandled).toEqual([]);
      expect(report.faults).toBeGreaterThanOrEqual(options.minimumFaults);
    },
    options.testTimeoutMs,
  );
});
