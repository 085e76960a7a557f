import { describeFaultTrials } from "@artifact-kit/fault-trials";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";
import { UNAVAILABLE } from "./support/fault-proxy.js";

// A resumable upload's data goes straight to the URL the emulator names, past the proxy: its
// faults are armed on the upload's other requests.
describeFaultTrials({
  backend: "gcs (fake-gcs-server)",
  serverEndpoint: endpoint(),
  proxyOptions: { rewriteHost: true },
  unavailable: UNAVAILABLE,
  async openLane(proxyEndpoint) {
    const bucket = await freshBucket();
    return {
      subject: new GcsArtifactService({ bucket: newStorage(proxyEndpoint).bucket(bucket.name) }),
      observer: new GcsArtifactService({ bucket }),
    };
  },
});
