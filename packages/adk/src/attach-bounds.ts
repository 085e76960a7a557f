import {
  invalidArgument,
  quotaExceeded,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";

/** How much a model may pull into one request through the attachment tool. */
export interface AttachmentBounds {
  /** Artifacts named in one call. Default 8. */
  readonly maxArtifacts: number;
  /** Bytes of all artifacts attached to one request together. Default 10 MiB. */
  readonly maxTotalBytes: number;
  /** Bytes of any one attached artifact. Default 4 MiB. */
  readonly maxArtifactBytes: number;
  /** Past a bound: `error` fails the call and attaches nothing; `skip` leaves out what does not fit. */
  readonly overflow: "error" | "skip";
}

export const DEFAULT_ATTACHMENT_BOUNDS: AttachmentBounds = Object.freeze({
  maxArtifacts: 8,
  maxTotalBytes: 10 * 1024 * 1024,
  maxArtifactBytes: 4 * 1024 * 1024,
  overflow: "error",
});

/** The bounds given, each checked, over the defaults. */
export function resolveAttachmentBounds(given: Partial<AttachmentBounds> = {}): AttachmentBounds {
  const keys = Object.keys(DEFAULT_ATTACHMENT_BOUNDS);
  const options = validateOptionKeys(given, keys, "bounds");
  const bounds = { ...DEFAULT_ATTACHMENT_BOUNDS, ...options } as AttachmentBounds;
  for (const limit of ["maxArtifacts", "maxTotalBytes", "maxArtifactBytes"] as const) {
    validatePositiveInteger(bounds[limit], `bounds.${limit}`);
  }
  if (bounds.overflow !== "error" && bounds.overflow !== "skip") {
    throw invalidArgument("bounds.overflow", 'must be "error" or "skip"');
  }
  return Object.freeze(bounds);
}

/** The limit names an overflow reports (ArtifactError detail.limit, or a skipped item's reason). */
export type AttachmentLimit =
  | "max_attachments"
  | "max_attachment_bytes"
  | "max_attachment_total_bytes";

interface Sized {
  readonly size: number;
}

interface AttachmentPlan<T> {
  readonly attach: T[];
  readonly skipped: Array<{ readonly item: T; readonly limit: AttachmentLimit }>;
}

/**
 * Which items fit the bounds, in the order asked. Under `error`, the first item past a bound
 * fails the whole plan with quota_exceeded (detail.limit names the bound).
 */
export function planAttachments<T extends Sized>(
  items: readonly T[],
  bounds: AttachmentBounds,
): AttachmentPlan<T> {
  const plan: AttachmentPlan<T> = { attach: [], skipped: [] };
  let total = 0;
  for (const item of items) {
    const limit = exceededLimit(item, plan.attach.length, total, bounds);
    if (limit === undefined) {
      plan.attach.push(item);
      total += item.size;
    } else if (bounds.overflow === "skip") {
      plan.skipped.push({ item, limit });
    } else {
      throw quotaExceeded(
        limit,
        boundOf(limit, bounds),
        `attaching this artifact would exceed ${limit}`,
      );
    }
  }
  return plan;
}

function exceededLimit(
  item: Sized,
  count: number,
  total: number,
  bounds: AttachmentBounds,
): AttachmentLimit | undefined {
  if (count >= bounds.maxArtifacts) return "max_attachments";
  if (item.size > bounds.maxArtifactBytes) return "max_attachment_bytes";
  if (total + item.size > bounds.maxTotalBytes) return "max_attachment_total_bytes";
  return undefined;
}

function boundOf(limit: AttachmentLimit, bounds: AttachmentBounds): number {
  if (limit === "max_attachments") return bounds.maxArtifacts;
  return limit === "max_attachment_bytes" ? bounds.maxArtifactBytes : bounds.maxTotalBytes;
}
