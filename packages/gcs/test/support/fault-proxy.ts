import { type Fault, FaultProxy } from "@artifact-kit/test-proxy";

export type { FaultProxy, SeenRequest } from "@artifact-kit/test-proxy";

/** GCS's reply when it cannot serve a request (503), given by the proxy instead of the server. */
export const UNAVAILABLE: Fault = { answer: { status: 503, body: '{"error":{"code":503}}' } };

/** A fault proxy in front of fake-gcs-server, which builds upload URLs from the Host header. */
export function startFaultProxy(target: string): Promise<FaultProxy> {
  return FaultProxy.start(target, { rewriteHost: true });
}
