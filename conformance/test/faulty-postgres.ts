import type {
  ArtifactServiceConformanceOptions,
  FaultInjection,
  FaultKind,
} from "@artifact-kit/core/conformance";
import { postgresSubjects } from "@artifact-kit/postgres/testing";
import { type ArmedFault, TcpFaultProxy } from "@artifact-kit/test-proxy";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";

// The kit's fault laws over postgres: the subject's pools reach the server through the TCP
// fault proxy, and the subject's `faults` arms one fault at the next client write, which for
// PostgreSQL's protocol is the next statement sent. A cut request is the connection cut
// before the statement's bytes pass; a lost reply forwards the statement and cuts the
// connection as the server starts to answer (the statement ran, or its transaction rolled
// back with the connection: either way the client never hears which).

/** Arms faults at the proxy's coming client writes, and counts those that struck. */
class TcpProxyFaults implements FaultInjection {
  /** Faults that a write took, over the run. */
  fired = 0;
  #armed: ArmedFault[] = [];

  constructor(private readonly proxy: TcpFaultProxy) {}

  /**
   * `times` faults, one a write from write `skip` on. Each proxy fault strikes once and counts
   * the writes that passed it: a dropped reply's write passes (so the next fault waits one more
   * write), a cut one does not (so the next fault waits for the same write, and takes the next).
   */
  armNext(kind: FaultKind, skip = 0, times = 1): void {
    this.disarm();
    const fault = kind === "lost-reply" ? "drop-reply" : "cut";
    for (let i = 0; i < times; i++) {
      this.#armed.push(this.proxy.armAtClientWrite(fault === "cut" ? skip : skip + i, fault));
    }
  }

  disarm(): boolean {
    const armed = this.#armed;
    this.#armed = [];
    for (const each of armed) each.disarm();
    const struck = armed.filter((each) => each.struck).length;
    this.fired += struck;
    return struck > 0;
  }
}

/** postgres subjects whose pools go through a TCP fault proxy, with the proxy's `faults`. */
export function postgresFaultOptions(): Pick<ArtifactServiceConformanceOptions, "create"> {
  let proxy: TcpFaultProxy | undefined;
  let faults: TcpProxyFaults | undefined;
  beforeAll(async () => {
    const server = new URL(inject("databaseUrl"));
    proxy = await TcpFaultProxy.start({ host: server.hostname, port: Number(server.port) });
    faults = new TcpProxyFaults(proxy);
  });
  afterAll(async () => {
    console.info(`postgres: ${faults?.fired ?? 0} faults taken by a statement`);
    await proxy?.close();
  });
  const subjects = postgresSubjects(() => {
    if (!proxy) throw new Error("the fault proxy has not started");
    const url = new URL(inject("databaseUrl"));
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    // A cut can strike a connection the pool holds idle; the pool is the caller's (ours, here),
    // and its listener is the caller's to give (see the postgres README).
    pool.on("error", () => undefined);
    return pool;
  });
  return {
    create: async () => {
      if (!faults) throw new Error("the fault proxy has not started");
      return { ...(await subjects.create()), faults };
    },
  };
}
