import { once } from "node:events";
import {
  createServer,
  request as forward,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

interface Hold {
  readonly atRequest: number;
  readonly delayMs: number;
  seen: number;
  onHold: () => void;
}

/**
 * A pass-through between the fault proxy and the server that holds requests itself and
 * knows when the server has nothing left to do. A held request is forwarded after its delay
 * even when its client has given up (a timeout), as a slow network delivers it: a trial
 * waits for `settled()` after each operation, so that a late write of one operation never
 * lands in the middle of the next one's checks. (The fault proxy's own delay cannot tell
 * whether a request whose client went away will still be forwarded.)
 */
export class ServerRelay {
  readonly #server: Server;
  readonly #target: URL;
  #inFlight = 0;
  #hold: Hold | undefined;
  #waiters: (() => void)[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Server, target: string) {
    this.#server = server;
    this.#target = new URL(target);
  }

  static async start(target: string): Promise<ServerRelay> {
    const server = createServer();
    const relay = new ServerRelay(server, target);
    server.on("request", (request, response) => relay.#handle(request, response));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return relay;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Holds the `atRequest`-th next request (from 0) for `delayMs` before forwarding it. */
  holdRequest(atRequest: number, delayMs: number, onHold: () => void): void {
    this.#hold = { atRequest, delayMs, seen: 0, onHold };
  }

  /** Forgets a hold that has not been used. */
  clearHold(): void {
    this.#hold = undefined;
  }

  /** Resolves once every request that reached the relay has been answered by the server. */
  settled(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, "close");
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    this.#inFlight += 1;
    // The client may be gone by the time a held request is answered.
    response.on("error", () => undefined);
    const delayMs = this.#takeHold();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("close", () => {
      // A body cut off on its way can never be applied.
      if (!request.complete) this.#finished();
    });
    request.on("end", () => {
      const send = () => this.#forward(request, Buffer.concat(chunks), response);
      if (delayMs === undefined) return send();
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        send();
      }, delayMs);
      this.#timers.add(timer);
    });
  }

  #takeHold(): number | undefined {
    const hold = this.#hold;
    if (!hold || hold.seen++ !== hold.atRequest) return undefined;
    this.#hold = undefined;
    hold.onHold();
    return hold.delayMs;
  }

  #forward(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const upstream = forward(
      {
        host: this.#target.hostname,
        port: this.#target.port,
        method: request.method,
        path: request.url,
        // The server names itself in the URLs it builds (resumable upload locations).
        headers: { ...request.headers, host: this.#target.host },
      },
      (answer) => {
        if (!response.destroyed) response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.destroy());
    upstream.once("close", () => this.#finished());
    upstream.end(body);
  }

  #finished(): void {
    this.#inFlight -= 1;
    if (this.#inFlight > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
