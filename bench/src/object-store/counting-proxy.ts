import { once } from "node:events";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A plain HTTP proxy between the clients and the emulator that counts the requests it
 * forwards, so that each store's requests per operation are measured, not assumed. Every
 * column goes through it, so the hop it adds is the same for all.
 */
export class CountingProxy {
  /** Requests forwarded since the proxy started. */
  requests = 0;
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: string): Promise<CountingProxy> {
    const upstream = new URL(target);
    const server = createServer();
    const proxy = new CountingProxy(server);
    server.on("request", (request, response) => {
      proxy.requests += 1;
      const forwarded = forward(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: upstream.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on("error", () => response.socket?.destroy());
      request.pipe(forwarded);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, "close");
  }
}
