import { unavailable } from "../../errors.js";

/**
 * A fault at one backend request:
 * - "cut-before": the request never reaches the backend (a refused connection, a 503 from a
 *   load balancer); nothing it asked for happens.
 * - "lost-reply": the backend receives and carries out the request, and its reply is lost
 *   (the connection drops on the way back); the caller cannot tell it from "cut-before".
 */
export type FaultKind = "cut-before" | "lost-reply";

export const FAULT_KINDS: readonly FaultKind[] = Object.freeze(["cut-before", "lost-reply"]);

/**
 * What a subject hands the kit to inject faults: one armed fault at a time, at the next
 * backend request the subject's service makes (through any of its handles). The kit never
 * runs two operations at once while a fault is armed, so "the next request" is a request
 * of the operation that follows the arming, and it disarms before it reads the result.
 */
export interface FaultInjection {
  /**
   * Arms one fault of `kind` for a coming backend request: the next one, or the one after
   * `skip` more (so that a fault also reaches the later requests of an operation that makes
   * several, such as a put that reserves a version, writes and publishes). With `times`
   * (default 1), the fault strikes that many consecutive requests: a client that retries a
   * failed request once (the s3 and azure SDKs) meets the fault again on its retry, as it does
   * on a network that stays down. An injector that ignores `times` only weakens the
   * "repeated faults" law (each of its walks then meets one fault), never fails it.
   */
  armNext(kind: FaultKind, skip?: number, times?: number): void;
  /**
   * Disarms the armed fault if no request has taken it yet; true when a request took it
   * (the fault happened), false when the operation made no backend request after arming.
   */
  disarm(): boolean;
}

/**
 * The state of one armed fault, for injectors that see each backend request go by (an
 * in-process bucket or backend, a proxy's predicate): `take` is called once per request
 * and says which fault, if any, that request meets.
 */
export class FaultArming {
  #armed: { kind: FaultKind; skip: number; times: number } | undefined;
  #took = false;
  /** Requests that met a fault, over the injector's life. */
  taken = 0;

  arm(kind: FaultKind, skip = 0, times = 1): void {
    this.#armed = times > 0 ? { kind, skip, times } : undefined;
    this.#took = false;
  }

  /** Takes back what no request has met yet; true when some request met the fault. */
  disarm(): boolean {
    this.#armed = undefined;
    return this.#took;
  }

  /** The fault the request now being sent meets, if any. */
  take(): FaultKind | undefined {
    const armed = this.#armed;
    if (armed === undefined) return undefined;
    if (armed.skip > 0) {
      this.#armed = { ...armed, skip: armed.skip - 1 };
      return undefined;
    }
    this.#armed = armed.times > 1 ? { ...armed, times: armed.times - 1 } : undefined;
    this.#took = true;
    this.taken += 1;
    return armed.kind;
  }

  /**
   * Sends one in-process request through the armed fault: a cut one never runs and fails
   * unavailable; a lost reply runs, and its caller hears unavailable instead of the answer.
   */
  async send<T>(request: () => Promise<T>): Promise<T> {
    const fault = this.take();
    if (fault === "cut-before") throw unavailable("injected: the request never arrived");
    const reply = await request();
    if (fault === "lost-reply") throw unavailable("injected: the reply was lost");
    return reply;
  }
}
