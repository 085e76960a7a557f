import { randomUUID } from "node:crypto";
import type { ArtifactMeta, ArtifactService } from "@artifact-kit/core";
import {
  type ArtifactServiceConformanceOptions,
  type RepairableService,
  repairFromAnotherInstance,
  type ServiceSubject,
} from "@artifact-kit/core/conformance";

/** How an object-store adapter's conformance subjects reach their bucket. */
export interface PrefixSubjectsOptions<Bounds> {
  /** A new service (with a new client, as another host would have) on `prefix`; no bounds, the defaults. */
  open(prefix: string, bounds?: Bounds): ArtifactService & RepairableService;
  /** Damages the published object of `meta` under `prefix` in place, at byte `offset`. */
  corrupt(prefix: string, meta: ArtifactMeta, offset: number): Promise<void>;
  /** The bounds of the kit's `create` subject (`{}` for the defaults). */
  bounds: Bounds;
  /** The kit's bounded subject: small enough to drive the item, page and list limits. */
  smallBounds: Bounds;
}

/**
 * The conformance kit's subjects for an object-store adapter: each subject is a fresh prefix
 * in one bucket; reopen and openAnother are a new service through `open` (openAnother while
 * the first stays open); openNeighbour a service with the defaults on a prefix nested in this
 * one's own folders (the hardest neighbour to keep apart); maintain runs repair() from
 * another instance; corrupt damages the published object in place.
 */
export function prefixSubjects<Bounds>(
  options: PrefixSubjectsOptions<Bounds>,
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  const subject = (bounds: Bounds) => async (): Promise<ServiceSubject> => {
    const prefix = randomUUID();
    const open = () => options.open(prefix, bounds);
    return {
      service: open(),
      reopen: async () => open(),
      openAnother: async () => open(),
      openNeighbour: async () => options.open(`${prefix}/c`),
      maintain: repairFromAnotherInstance(open),
      corrupt: (meta, offset) => options.corrupt(prefix, meta, offset),
    };
  };
  return { create: subject(options.bounds), createBounded: subject(options.smallBounds) };
}

export {
  BUCKET_LISTING_LAWS,
  type BucketListingLaw,
  type FilledPrefix,
  fillListingPrefix,
} from "./bucket-listing-laws.js";

/**
 * The kit's laws an object-store adapter's own run leaves out, as the protocol's: the scale
 * laws (1,100+ names, versions of one name, hundreds of scopes) prove the shared protocol's
 * listings, and run whole over the in-memory bucket, whose 4-key pages end far more often
 * than a server's 1,000-key ones. What a real server adds, its pages, tokens and key order,
 * each adapter holds with BUCKET_LISTING_LAWS. Through the three emulators the scale laws
 * cost 510 CPU-seconds of a 2-core CI run's 4,000.
 */
export const OBJECT_STORE_SCALE_LAWS: readonly string[] = ["scale: "];
