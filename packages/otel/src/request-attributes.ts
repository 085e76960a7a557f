import type { ArtifactMeta } from "@artifact-kit/core";
import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_HAS_NEXT_PAGE,
  ATTR_NAME,
  ATTR_PAGE_LIMIT,
  ATTR_RANGE_LENGTH,
  ATTR_RANGE_OFFSET,
  ATTR_RESULT_COUNT,
  ATTR_SCOPE_APP,
  ATTR_SCOPE_KIND,
  ATTR_SCOPE_SESSION,
  ATTR_SCOPE_USER,
  ATTR_SELECTOR,
  ATTR_SIZE,
  ATTR_VERSION,
} from "./attributes.js";
import type { Telemetry } from "./telemetry.js";

// The wrapper sees arguments before the adapter validates them, so everything here reads
// them defensively: a malformed argument is described as far as it can be and is otherwise
// left out, never thrown on. The adapter's own validation error is what the caller gets.

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null ? (value as Fields) : undefined;
}

/** Scope kind always; the ids only as the scope-id policy allows. */
function scopeAttributes(telemetry: Telemetry, scope: unknown, into: Attributes): void {
  const fields = fieldsOf(scope);
  if (fields === undefined) return;
  const { kind } = fields;
  if (kind === "app" || kind === "user" || kind === "session") into[ATTR_SCOPE_KIND] = kind;
  const policy = telemetry.scopeIds;
  if (!policy.records) return;
  setIfDefined(into, ATTR_SCOPE_APP, policy.record(fields.app));
  if (kind === "app") return;
  setIfDefined(into, ATTR_SCOPE_USER, policy.record(fields.user));
  if (kind === "user") return;
  setIfDefined(into, ATTR_SCOPE_SESSION, policy.record(fields.session));
}

/** The attributes of a call on (scope, name): scope and, as the name policy allows, the name. */
export function targetAttributes(telemetry: Telemetry, scope: unknown, name?: unknown): Attributes {
  const attributes: Attributes = {};
  scopeAttributes(telemetry, scope, attributes);
  setIfDefined(attributes, ATTR_NAME, telemetry.names.record(name));
  return attributes;
}

/** Adds `artifact.selector`: "latest", "all" or the version number, as text (one type per key). */
export function selected(into: Attributes, selector: unknown): Attributes {
  if (selector === "latest" || selector === "all") into[ATTR_SELECTOR] = selector;
  else if (typeof selector === "number" && Number.isFinite(selector)) {
    into[ATTR_SELECTOR] = String(selector);
  }
  return into;
}

/** The version option of get / head / download, which defaults to "latest". */
export function versionOption(options: unknown): unknown {
  const fields = fieldsOf(options);
  return fields === undefined || fields.version === undefined ? "latest" : fields.version;
}

/** Adds `artifact.page.limit` when the options ask for one. */
export function limited(into: Attributes, options: unknown): Attributes {
  const limit = fieldsOf(options)?.limit;
  if (typeof limit === "number" && Number.isFinite(limit)) into[ATTR_PAGE_LIMIT] = limit;
  return into;
}

export function rangeAttributes(into: Attributes, options: unknown): void {
  const range = fieldsOf(fieldsOf(options)?.range);
  if (range === undefined) return;
  if (typeof range.offset === "number") into[ATTR_RANGE_OFFSET] = range.offset;
  if (typeof range.length === "number") into[ATTR_RANGE_LENGTH] = range.length;
}

export function sizeOf(data: unknown): number | undefined {
  return data instanceof Uint8Array ? data.byteLength : undefined;
}

/** What a reply record says: its version and size (never its name or scope: the request has them). */
export function metaAttributes(meta: ArtifactMeta): Attributes {
  return { [ATTR_VERSION]: meta.version, [ATTR_SIZE]: meta.size };
}

export function pageAttributes(count: number, hasNext: boolean): Attributes {
  return { [ATTR_RESULT_COUNT]: count, [ATTR_HAS_NEXT_PAGE]: hasNext };
}

export function setIfDefined(
  into: Attributes,
  key: string,
  value: string | number | undefined,
): void {
  if (value !== undefined) into[key] = value;
}
