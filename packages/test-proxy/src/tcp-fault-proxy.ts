import { once } from "node:events";
import {
  type AddressInfo,
  createConnection,
  createServer,
  type Server,
  type Socket,
} from "node:net";
import { afterClientBytes, atClientText, atClientWrite, type Trigger } from "./tcp-triggers.js";

/**
 * What an armed fault does to the connection it strikes:
 * - "cut": closes both sides there; the bytes from the strike on never reach the server.
 * - "reset": the same, but the client's side is reset (RST) instead of closed.
 * - "drop-reply": forwards the request, then cuts both sides the moment the server starts
 *   answering: the server did the work, the client never hears of it.
 * - "stall-reply": forwards the request, then never passes on another byte of the server's,
 *   nor its close (the client's connection stays open): a server or network that froze with
 *   the reply in flight.
 * - replyBytes: forwards the request and this many bytes of the server's answer, then cuts
 *   both sides: a reply cut in the middle.
 * - delayMs: holds the client's bytes from the strike on this long, then goes on.
 */
export type TcpFault =
  | "cut"
  | "reset"
  | "drop-reply"
  | "stall-reply"
  | { readonly replyBytes: number }
  | { readonly delayMs: number };

export interface ArmedFault {
  readonly fault: TcpFault;
  /** Whether it has struck (each armed fault strikes at most once). */
  readonly struck: boolean;
  /** Takes it back if it has not struck yet. */
  disarm(): void;
}

interface Armed extends ArmedFault {
  readonly trigger: Trigger;
  struck: boolean;
}

/** One client connection and its own connection to the server. */
interface Link {
  readonly client: Socket;
  readonly server: Socket;
  /**
   * Server bytes still to pass before the link is cut (a drop-reply or replyBytes fault), or
   * "stall" (a stall-reply fault: none ever pass again); undefined while no fault struck.
   */
  reply: number | "stall" | undefined;
}

/**
 * A TCP proxy in front of a real server (PostgreSQL, an object store emulator) that breaks
 * connections at chosen moments: after a number of client bytes, or where the client sends
 * a given text (a statement's name, say). It knows nothing of the protocol it carries.
 */
export class TcpFaultProxy {
  /** Connections accepted (refused ones included). */
  connections = 0;
  /** Faults that struck, refusals included. */
  faultsStruck = 0;
  /** Client bytes forwarded to the server, over all connections: to place faults within an operation. */
  clientBytes = 0;
  readonly #server: Server;
  readonly #target: { readonly host: string; readonly port: number };
  readonly #links = new Set<Link>();
  readonly #armed: Armed[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #refusals = 0;

  private constructor(server: Server, target: { host: string; port: number }) {
    this.#server = server;
    this.#target = target;
  }

  /** Listens on 127.0.0.1 (a free port) and forwards to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpFaultProxy> {
    const server = createServer({ pauseOnConnect: true });
    const proxy = new TcpFaultProxy(server, { ...target });
    server.on("connection", (socket) => proxy.#accept(socket));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return proxy;
  }

  get host(): string {
    return "127.0.0.1";
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Arms `fault` to strike once `count` more client bytes (any connection) have passed. */
  armAfterClientBytes(count: number, fault: TcpFault): ArmedFault {
    return this.#arm(afterClientBytes(count), fault);
  }

  /** Arms `fault` to strike where a client next sends `text` (before the text is forwarded). */
  armAtClientText(text: string, fault: TcpFault): ArmedFault {
    return this.#arm(atClientText(text), fault);
  }

  /** Arms `fault` to strike at the next client write (any connection), or the one after `skip` more. */
  armAtClientWrite(skip: number, fault: TcpFault): ArmedFault {
    return this.#arm(atClientWrite(skip), fault);
  }

  /** Resets the next `count` connections as soon as they are accepted. */
  refuseNext(count = 1): void {
    this.#refusals += count;
  }

  /** Takes back every armed fault and refusal that has not struck. */
  disarmAll(): void {
    for (const armed of [...this.#armed]) armed.disarm();
    this.#refusals = 0;
  }

  /** Cuts every open connection now (idle ones too). */
  cutAll(): void {
    for (const link of this.#links) this.#cut(link);
  }

  async close(): Promise<void> {
    this.disarmAll();
    for (const timer of this.#timers) clearTimeout(timer);
    this.cutAll();
    this.#server.close();
    await once(this.#server, "close");
  }

  #arm(trigger: Trigger, fault: TcpFault): ArmedFault {
    const armed: Armed = {
      trigger,
      fault,
      struck: false,
      disarm: () => {
        const at = this.#armed.indexOf(armed);
        if (at >= 0) this.#armed.splice(at, 1);
      },
    };
    this.#armed.push(armed);
    return armed;
  }

  #accept(client: Socket): void {
    this.connections += 1;
    client.on("error", () => undefined);
    if (this.#refusals > 0) {
      this.#refusals -= 1;
      this.faultsStruck += 1;
      client.resetAndDestroy();
      return;
    }
    const server = createConnection(this.#target);
    server.on("error", () => undefined);
    const link: Link = { client, server, reply: undefined };
    this.#links.add(link);
    client.on("data", (chunk: Buffer) => this.#fromClient(link, chunk));
    server.on("data", (chunk: Buffer) => this.#fromServer(link, chunk));
    // A half-close passes through; a closed or failed side takes the other with it.
    // (A stalled reply stalls the server's close too: the client is left waiting.)
    client.on("end", () => server.end());
    server.on("end", () => {
      if (link.reply !== "stall") client.end();
    });
    client.on("close", () => this.#cut(link));
    server.on("close", () => {
      if (link.reply !== "stall") this.#cut(link);
    });
    client.resume();
  }

  #fromClient(link: Link, chunk: Buffer): void {
    let strike: { armed: Armed; at: number } | undefined;
    for (const armed of this.#armed) {
      const at = armed.trigger.strikeAt(link, chunk);
      if (at !== undefined && (strike === undefined || at < strike.at)) strike = { armed, at };
    }
    if (strike === undefined) {
      this.#forward(link, chunk);
      return;
    }
    const { armed, at } = strike;
    armed.disarm();
    armed.struck = true;
    this.faultsStruck += 1;
    this.#forward(link, chunk.subarray(0, at));
    const rest = chunk.subarray(at);
    const { fault } = armed;
    if (fault === "cut") this.#cut(link);
    else if (fault === "reset") this.#reset(link);
    else if (fault === "drop-reply" || fault === "stall-reply" || "replyBytes" in fault) {
      link.reply =
        fault === "drop-reply" ? 0 : fault === "stall-reply" ? "stall" : fault.replyBytes;
      this.#forward(link, rest);
    } else this.#delay(link, rest, fault.delayMs);
  }

  /** Sends client bytes on, and tells every armed trigger they passed. */
  #forward(link: Link, bytes: Buffer): void {
    if (bytes.length === 0 || link.server.destroyed) return;
    this.clientBytes += bytes.length;
    for (const armed of this.#armed) armed.trigger.passed(link, bytes);
    if (!link.server.write(bytes)) {
      link.client.pause();
      link.server.once("drain", () => link.client.resume());
    }
  }

  #fromServer(link: Link, chunk: Buffer): void {
    if (link.reply === "stall") return;
    if (link.reply !== undefined) {
      if (link.reply < chunk.length) {
        // The bytes that pass reach the client before the connection closes.
        const passing = chunk.subarray(0, link.reply);
        this.#links.delete(link);
        link.client.end(passing, () => link.client.destroy());
        link.server.destroy();
        return;
      }
      link.reply -= chunk.length;
    }
    if (!link.client.write(chunk)) {
      link.server.pause();
      link.client.once("drain", () => link.server.resume());
    }
  }

  #delay(link: Link, rest: Buffer, delayMs: number): void {
    link.client.pause();
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (link.client.destroyed) return;
      // The held bytes meet the other armed faults like any others.
      this.#fromClient(link, rest);
      link.client.resume();
    }, delayMs);
    this.#timers.add(timer);
  }

  #cut(link: Link): void {
    this.#links.delete(link);
    link.client.destroy();
    closeAfterFlush(link.server);
  }

  #reset(link: Link): void {
    this.#links.delete(link);
    link.client.resetAndDestroy();
    closeAfterFlush(link.server);
  }
}

/** Ends a socket once what was written to it is out: forwarded bytes do reach the server. */
function closeAfterFlush(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end(() => socket.destroy());
}
