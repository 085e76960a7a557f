import { createArtifactRuntime } from "@artifact-kit/sharded";
import { fanOutWorkload } from "../fs/fan-out.js";
import { openOurs } from "../fs/suite.js";
import { ScratchSpace } from "../scratch.js";
import { compare, type Suite } from "../suite.js";
import { KiB, MiB, payload } from "../workloads.js";
import { putBesideSaturatedScopeWorkload } from "./saturated.js";

const SCOPES = 64;
const PUTS_PER_SCOPE = 10;

/**
 * Issue 5: 64 scopes putting at once through the exact-scope router over fs (one fs worker
 * per scope), into one plain fs instance, and the same work one scope at a time; then the
 * latency of one scope's puts while another scope is saturated.
 */
export function shardedSuite(): Suite {
  const scratch = new ScratchSpace();
  const openRouter = (owner: string) => () =>
    createArtifactRuntime("durable_local", { root: scratch.fresh(owner) });
  const bytes = payload(4 * KiB);
  const allScopes = (concurrent: boolean) => ({
    writers: SCOPES,
    scopes: SCOPES,
    putsPerWriter: PUTS_PER_SCOPE,
    concurrent,
  });
  // A scope saturated with 1 MiB puts keeps the disk and libuv's 4 file threads busy.
  const saturation = { writers: 8, bytes: payload(MiB) };
  return {
    title: "sharded",
    // One throughput operation is 640 fsync'd puts (seconds): a few samples, each long.
    minSamples: 3,
    showP99: true,
    columns: [
      { id: "router", label: "router (durable_local, fs worker per scope)" },
      { id: "plain", label: "one plain FsArtifactService" },
      { id: "serial", label: "router, one scope at a time" },
    ],
    comparisons: [
      compare("vsPlain", "router/plain ops/s", "router", "plain", "throughput"),
      compare("vsSerial", "router/one at a time ops/s", "router", "serial", "throughput"),
      compare("p99VsPlain", "router/plain p99", "router", "plain", "p99"),
    ],
    rows: [
      {
        label: `${SCOPES} scopes x ${PUTS_PER_SCOPE} durable puts of 4 KiB (one op = all ${SCOPES * PUTS_PER_SCOPE})`,
        batch: 1,
        workloads: {
          router: fanOutWorkload(openRouter("router"), bytes, allScopes(true)),
          plain: fanOutWorkload(openOurs(scratch, "plain"), bytes, allScopes(true)),
          serial: fanOutWorkload(openRouter("serial"), bytes, allScopes(false)),
        },
      },
      {
        label: "durable put 4 KiB into one scope while another has 8 puts of 1 MiB in flight",
        batch: 1,
        workloads: {
          router: putBesideSaturatedScopeWorkload(openRouter("tail-router"), bytes, saturation),
          plain: putBesideSaturatedScopeWorkload(
            openOurs(scratch, "tail-plain"),
            bytes,
            saturation,
          ),
        },
      },
    ],
    close: async () => scratch.close(),
  };
}
