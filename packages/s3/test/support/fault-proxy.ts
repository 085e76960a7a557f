import type { Fault } from "@artifact-kit/test-proxy";

export { FaultProxy, type SeenRequest } from "@artifact-kit/test-proxy";

/** S3's throttling reply (503 SlowDown), given by the proxy instead of the server. */
export const SLOW_DOWN: Fault = {
  answer: {
    status: 503,
    contentType: "application/xml",
    body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>',
  },
};
