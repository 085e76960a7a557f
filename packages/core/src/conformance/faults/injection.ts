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
   * several, such as a put that reserves a version, writes and publishes).
   */
  armNext(kind: FaultKind, skip?: number): void;
  /**
   * Disarms the armed fault if no request has taken it yet; true when a request took it
   * (the fault happened), false when the operation made no backend request after arming.
   */
  disarm(): boolean;
}
