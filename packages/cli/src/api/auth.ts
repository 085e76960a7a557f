import { timingSafeEqual } from "node:crypto";
import { capabilityDenied, sha256Hex } from "@artifact-kit/core";

const BEARER = /^Bearer ([\x21-\x7e]+)$/;

/** Compares digests, so neither the token's length nor its content leaks through timing. */
export function checkBearer(header: string | undefined, token: string): void {
  const given = header === undefined ? undefined : BEARER.exec(header)?.[1];
  const ok =
    given !== undefined &&
    timingSafeEqual(Buffer.from(sha256Hex(given), "hex"), Buffer.from(sha256Hex(token), "hex"));
  if (!ok) {
    throw capabilityDenied("a valid bearer token is required", { reason: "unauthenticated" });
  }
}
