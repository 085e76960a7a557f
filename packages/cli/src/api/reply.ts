import { ArtifactError, unavailable } from "@artifact-kit/core";
import { publicError } from "./public-error.js";
import { statusFor } from "./status.js";

/** A JSON answer: never cached, and a body refused unread never left on the connection. */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  const text = JSON.stringify(body);
  return new Response(text, {
    status,
    headers: {
      ...headers,
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      "cache-control": "no-store",
      // A request whose body was refused unread must not leave it on a kept-alive connection.
      ...(status === 413 ? { connection: "close" } : {}),
    },
  });
}

/**
 * The answer to a failure: its status, and a body that says only what the caller may know
 * (see publicError). A 5xx failure is handed to `onServerError` with its full cause.
 */
export function failureReply(
  error: unknown,
  headers: Record<string, string>,
  onServerError: ((error: Error) => void) | undefined,
): Response {
  const failure = error instanceof ArtifactError ? error : unavailable("the request failed", error);
  const status = statusFor(failure);
  if (status >= 500) onServerError?.(failure);
  const allow = failure.detail.reason === "method_not_allowed" ? failure.detail.allow : undefined;
  const size = failure.detail.reason === "range_not_satisfiable" ? failure.detail.size : undefined;
  return jsonReply(
    status,
    { error: publicError(failure, status) },
    {
      ...headers,
      ...(typeof allow === "string" ? { allow } : {}),
      ...(typeof size === "number" ? { "content-range": `bytes */${size}` } : {}),
    },
  );
}
