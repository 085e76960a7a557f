/**
 * Custom metadata as Azure can carry it. Azure's metadata names must be C# identifiers, so the
 * protocol's names ("artifact-kit-request") travel with "_" for "-" ("artifact_kit_request");
 * values travel in x-ms-meta-* headers, which carry printable ASCII only, so every other
 * character (and "%" itself) is percent-encoded: a manifest copy with a Unicode name survives.
 */

/** Azure's bound on one blob's metadata: names and values together. */
export const MAX_METADATA_BYTES = 8 * 1024;

/**
 * The header format's copy of the manifest: an optimisation (the manifest is in the blob's
 * first line too), so it is the entry left out when the metadata would pass Azure's bound.
 */
const INLINE_MANIFEST_NAME = "artifact-kit-manifest";

const OUTSIDE_PRINTABLE_ASCII = /[^\x20-\x24\x26-\x7e]/gu;

export function encodeMetadata(metadata: Readonly<Record<string, string>>): Record<string, string> {
  const encoded = Object.fromEntries(
    Object.entries(metadata).map(([name, value]) => [
      name.replaceAll("-", "_"),
      value.replace(OUTSIDE_PRINTABLE_ASCII, encodeURIComponent),
    ]),
  );
  const inline = INLINE_MANIFEST_NAME.replaceAll("-", "_");
  if (metadataBytes(encoded) > MAX_METADATA_BYTES) delete encoded[inline];
  return encoded;
}

/** Metadata as the protocol wrote it; a value that is not ours to decode is kept as it is. */
export function decodeMetadata(
  metadata: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(metadata ?? {}).map(([name, value]) => [
      name.replaceAll("_", "-"),
      decodeValue(value),
    ]),
  );
}

function decodeValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function metadataBytes(metadata: Readonly<Record<string, string>>): number {
  return Object.entries(metadata).reduce(
    (sum, [name, value]) => sum + name.length + value.length,
    0,
  );
}
