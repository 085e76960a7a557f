import { TcpFaultProxy } from "@artifact-kit/test-proxy";
import pg from "pg";
import { databaseUrl } from "./database.js";

// The real server behind a TCP fault proxy, and a watch on the process for what no fault
// may ever cause: an uncaught exception or an unhandled rejection.

export interface Proxied {
  readonly proxy: TcpFaultProxy;
  /**
   * A pool whose connections all pass the proxy. Its own 'error' listener counts what pg
   * reports for idle connections, as every pool's owner must listen (README).
   */
  pool(max?: number): pg.Pool;
  /** Errors the pools reported for their idle connections. */
  readonly idleErrors: number;
  stop(): Promise<void>;
}

export async function startProxied(): Promise<Proxied> {
  const target = new URL(databaseUrl());
  const proxy = await TcpFaultProxy.start({ host: target.hostname, port: Number(target.port) });
  const pools: pg.Pool[] = [];
  let idleErrors = 0;
  return {
    proxy,
    pool(max = 2) {
      const url = new URL(databaseUrl());
      url.host = `${proxy.host}:${proxy.port}`;
      const pool = new pg.Pool({ connectionString: url.toString(), max });
      pool.on("error", () => {
        idleErrors += 1;
      });
      pools.push(pool);
      return pool;
    },
    get idleErrors() {
      return idleErrors;
    },
    async stop() {
      await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
      await proxy.close();
    },
  };
}

export interface ProcessWatch {
  /** Uncaught exceptions and unhandled rejections seen since the watch began, as messages. */
  readonly failures: readonly string[];
  stop(): void;
}

/** Counts uncaught exceptions and unhandled rejections (the test runner still sees them). */
export function watchProcess(): ProcessWatch {
  const failures: string[] = [];
  const record = (error: unknown) => {
    failures.push(error instanceof Error ? error.message : String(error));
  };
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  return {
    failures,
    stop() {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    },
  };
}
