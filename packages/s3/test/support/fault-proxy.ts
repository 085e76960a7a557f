import { once } from "node:events";
import {
  createServer,
  request as forward,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does to one request: forward it; forward it but lose the response (the
 * write lands, the client hears nothing); answer 503 SlowDown without forwarding; or forward
 * it late; or forward it without a header.
 */
export type Fault =
  | "drop-response"
  | "slow-down"
  | { delayMs: number }
  /** Forwards the request without one header, as a server that ignores it would act. */
  | { withoutHeader: string };

export interface SeenRequest {
  readonly method: string;
  /** Path and query, decoded, e.g. /bucket/prefix/s/<digest>/a/<key>/<n>?x-id=PutObject */
  readonly url: string;
}

interface Rule {
  matches: (request: SeenRequest) => boolean;
  fault: Fault;
  remaining: number;
}

const SLOW_DOWN =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';

/** A small HTTP proxy between the S3 client and the server that logs and injects faults. */
export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  readonly #server: Server;
  readonly #target: URL;
  readonly #rules: Rule[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Server, target: string) {
    this.#server = server;
    this.#target = new URL(target);
  }

  static async start(target: string): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, target);
    server.on("request", (request, response) => proxy.#handle(request, response));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return proxy;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Applies `fault` to the next `times` requests that match. */
  inject(matches: (request: SeenRequest) => boolean, fault: Fault, times = 1): void {
    this.#rules.push({ matches, fault, remaining: times });
  }

  clearFaults(): void {
    this.#rules.length = 0;
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, "close");
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const seen = { method: request.method ?? "GET", url: decodeURIComponent(request.url ?? "/") };
    this.seen.push(seen);
    const rule = this.#rules.find(
      (candidate) => candidate.remaining > 0 && candidate.matches(seen),
    );
    if (rule) rule.remaining -= 1;
    const fault = rule?.fault;
    if (fault === "slow-down") {
      request.resume();
      request.on("end", () =>
        response.writeHead(503, { "content-type": "application/xml" }).end(SLOW_DOWN),
      );
      return;
    }
    const strip = typeof fault === "object" && "withoutHeader" in fault ? fault.withoutHeader : "";
    const send = () => this.#forward(request, response, fault === "drop-response", strip);
    if (typeof fault === "object" && "delayMs" in fault) {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        send();
      }, fault.delayMs);
      this.#timers.add(timer);
    } else {
      send();
    }
  }

  #forward(
    request: IncomingMessage,
    response: ServerResponse,
    dropResponse: boolean,
    withoutHeader: string,
  ): void {
    const { [withoutHeader]: _dropped, ...headers } = request.headers;
    const upstream = forward(
      {
        host: this.#target.hostname,
        port: this.#target.port,
        method: request.method,
        path: request.url,
        headers,
      },
      (answer) => {
        if (dropResponse) {
          answer.resume();
          answer.on("end", () => response.socket?.destroy());
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", () => response.socket?.destroy());
    request.pipe(upstream);
  }
}
