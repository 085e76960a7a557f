import type { Fault } from "@artifact-kit/test-proxy";

export { FaultProxy, type SeenRequest } from "@artifact-kit/test-proxy";

/** Azure's throttling reply (503 ServerBusy), given by the proxy instead of the service. */
export const SERVER_BUSY: Fault = {
  answer: {
    status: 503,
    contentType: "application/xml",
    body: '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>The server is busy.</Message></Error>',
  },
};
