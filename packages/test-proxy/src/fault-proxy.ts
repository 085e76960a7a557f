import { once } from "node:events";
import {
  createServer,
  request as forward,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** A reply the proxy gives itself, without forwarding: a server's refusal (503 and the like). */
export interface CannedAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType?: string;
}

/**
 * What the proxy does to one request: forward it but lose the response (the write lands,
 * the client hears nothing); forward it late; forward it without one header, as a server
 * that ignores that header would act; or answer it itself without forwarding.
 */
export type Fault =
  | "drop-response"
  | { readonly delayMs: number }
  | { readonly withoutHeader: string }
  | { readonly answer: CannedAnswer };

export interface SeenRequest {
  readonly method: string;
  /** Path and query, decoded, e.g. /bucket/prefix/s/<digest>/a/<key>/<n>?x-id=PutObject */
  readonly url: string;
}

export interface FaultProxyOptions {
  /**
   * Send the target's host in the Host header instead of the client's (a server that builds
   * URLs from it, such as fake-gcs-server's resumable upload locations, must name itself).
   */
  readonly rewriteHost?: boolean;
}

interface Rule {
  matches: (request: SeenRequest) => boolean;
  fault: Fault;
  remaining: number;
}

/**
 * A small HTTP proxy between a storage client and its server (a real one, in tests) that
 * logs every request and injects faults into the ones a rule matches.
 */
export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  /** The most requests that were open at the proxy at once. */
  maxInFlight = 0;
  #inFlight = 0;
  readonly #server: Server;
  readonly #target: URL;
  readonly #rewriteHost: boolean;
  readonly #rules: Rule[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  private constructor(server: Server, target: string, options: FaultProxyOptions) {
    this.#server = server;
    this.#target = new URL(target);
    this.#rewriteHost = options.rewriteHost ?? false;
  }

  static async start(target: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, target, options);
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
    this.#inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
    response.on("close", () => {
      this.#inFlight -= 1;
    });
    const rule = this.#rules.find(
      (candidate) => candidate.remaining > 0 && candidate.matches(seen),
    );
    if (rule) rule.remaining -= 1;
    const fault = rule?.fault;
    if (typeof fault === "object" && "answer" in fault) {
      const { status, body, contentType } = fault.answer;
      request.resume();
      request.on("end", () =>
        response.writeHead(status, contentType ? { "content-type": contentType } : {}).end(body),
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
    if (this.#rewriteHost) headers.host = this.#target.host;
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
