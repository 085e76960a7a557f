import {
  type FaultTrialReport,
  runFaultTrials,
  trialOptionsFromEnv,
} from "@artifact-kit/fault-trials";
import { describe, expect, it } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { SLOW_DOWN } from "./support/fault-proxy.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const MiB = 1024 * 1024;

// Seeded trials: put, streamed upload (now and then above one part), keyed put and its retry,
// delete of a version, of latest and of all, and repair(), each with a lost reply, a 503
// SlowDown or a held request armed on one of its requests; then a clean client checks that
// nothing acknowledged is lost and nothing deleted comes back (see fault-trials' checkLane).
const options = trialOptionsFromEnv();

describe("seeded fault trials", () => {
  it(
    "keep every promise through lost replies, 503s and held requests",
    async () => {
      const report: FaultTrialReport = await runFaultTrials(
        {
          backend: "s3 (moto)",
          serverEndpoint: endpoint(),
          unavailable: SLOW_DOWN,
          largeUploadBytes: 5 * MiB + 17,
          async openLane(proxyEndpoint) {
            const bucket = await freshBucket();
            const partBytes = 5 * MiB;
            return {
              subject: new S3ArtifactService({
                client: newClient(proxyEndpoint),
                bucket,
                partBytes,
              }),
              observer: new S3ArtifactService({ client: newClient(), bucket, partBytes }),
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
