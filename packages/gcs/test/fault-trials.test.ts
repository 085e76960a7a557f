import {
  type FaultTrialReport,
  runFaultTrials,
  trialOptionsFromEnv,
} from "@artifact-kit/fault-trials";
import { describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { UNAVAILABLE } from "./support/fault-proxy.js";

// Seeded trials: put, streamed upload, keyed put and its retry, delete of a version, of latest
// and of all, each with a lost reply, a 503 or a held request armed on one of its requests
// (all but a resumable upload's data, which goes straight to the URL the emulator names);
// then a clean client checks that nothing acknowledged is lost and nothing deleted comes
// back (see fault-trials' checkLane).
const options = trialOptionsFromEnv();

describe("seeded fault trials", () => {
  it(
    "keep every promise through lost replies, 503s and held requests",
    async () => {
      const report: FaultTrialReport = await runFaultTrials(
        {
          backend: "gcs (fake-gcs-server)",
          serverEndpoint: endpoint(),
          proxyOptions: { rewriteHost: true },
          unavailable: UNAVAILABLE,
          async openLane(proxyEndpoint) {
            const bucket = await freshBucket();
            return {
              subject: new GcsArtifactService({
                bucket: newStorage(proxyEndpoint).bucket(bucket.name),
              }),
              observer: new GcsArtifactService({ bucket }),
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
