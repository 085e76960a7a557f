import { invalidArgument } from "./errors.js";
import {
  MAX_METADATA_BYTES,
  MAX_METADATA_DEPTH,
  MAX_METADATA_ENTRIES,
  MAX_MIME_TYPE_BYTES,
  MAX_NAME_BYTES,
  MAX_SCOPE_ID_BYTES,
} from "./limits.js";
import type { JsonObject, JsonValue, Scope } from "./types.js";

export function utf8ByteLength(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

// fatal: malformed bytes are an error, not U+FFFD. ignoreBOM: a leading U+FEFF is part of the
// text (a name may start with one); the default decoder would silently strip it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes UTF-8 exactly: every byte sequence that was encoded from a string decodes back to
 * that string, a leading U+FEFF included. Throws a TypeError on malformed UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  return strictUtf8.decode(bytes);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A well-formed (no lone surrogates), NUL-free string of 1..maxBytes UTF-8 bytes. */
export function validateText(value: unknown, field: string, maxBytes: number): string {
  if (typeof value !== "string") throw invalidArgument(field, "must be a string");
  if (value.length === 0) throw invalidArgument(field, "must not be empty");
  if (!value.isWellFormed()) throw invalidArgument(field, "contains a lone UTF-16 surrogate");
  if (value.includes("\0")) throw invalidArgument(field, "contains NUL");
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no byte count.
  if (value.length * 3 > maxBytes && utf8ByteLength(value) > maxBytes) {
    throw invalidArgument(field, `is longer than ${maxBytes} UTF-8 bytes`);
  }
  return value;
}

const SCOPE_KEYS = {
  app: ["kind", "app"],
  user: ["kind", "app", "user"],
  session: ["kind", "app", "user", "session"],
} as const;

/** Checks a scope and returns a frozen copy holding exactly its kind's keys. */
export function validateScope(value: unknown, field = "scope"): Scope {
  if (!isPlainObject(value)) throw invalidArgument(field, "must be a plain object");
  const kind = value.kind;
  if (kind !== "app" && kind !== "user" && kind !== "session") {
    throw invalidArgument(`${field}.kind`, 'must be "app", "user" or "session"');
  }
  const allowed: readonly string[] = SCOPE_KEYS[kind];
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw invalidArgument(`${field}.${key}`, "is not a key of this scope kind");
  }
  const app = validateText(value.app, `${field}.app`, MAX_SCOPE_ID_BYTES);
  if (kind === "app") return Object.freeze({ kind, app });
  const user = validateText(value.user, `${field}.user`, MAX_SCOPE_ID_BYTES);
  if (kind === "user") return Object.freeze({ kind, app, user });
  const session = validateText(value.session, `${field}.session`, MAX_SCOPE_ID_BYTES);
  return Object.freeze({ kind, app, user, session });
}

const DOT = 0x2e;

function isEmptyOrDotSegment(name: string, start: number, end: number): boolean {
  const length = end - start;
  if (length === 0) return true;
  if (length > 2 || name.charCodeAt(start) !== DOT) return false;
  return length === 1 || name.charCodeAt(start + 1) === DOT;
}

/** A `/`-separated name with no empty, `.` or `..` segment. */
export function validateName(value: unknown, field = "name"): string {
  const name = validateText(value, field, MAX_NAME_BYTES);
  // Scans in place rather than splitting: names are validated on every call.
  for (let start = 0; start <= name.length; ) {
    const slash = name.indexOf("/", start);
    const end = slash === -1 ? name.length : slash;
    if (isEmptyOrDotSegment(name, start, end)) {
      throw invalidArgument(field, `has an empty, "." or ".." segment`);
    }
    start = end + 1;
  }
  return name;
}

/**
 * The start of some valid name: every segment but the last is a valid one; the last, which a
 * name may continue, may be empty or partial ("reports/", "reports/q", "reports/.").
 */
export function validateNamePrefix(value: unknown, field = "prefix"): string {
  const prefix = validateText(value, field, MAX_NAME_BYTES);
  const lastSlash = prefix.lastIndexOf("/");
  for (let start = 0; start <= lastSlash; ) {
    const end = prefix.indexOf("/", start);
    if (isEmptyOrDotSegment(prefix, start, end)) {
      throw invalidArgument(field, `has an empty, "." or ".." segment before its last "/"`);
    }
    start = end + 1;
  }
  return prefix;
}

export function validateData(value: unknown, field = "data"): Uint8Array {
  if (!(value instanceof Uint8Array)) throw invalidArgument(field, "must be a Uint8Array");
  return value;
}

export function validateMimeType(value: unknown, field = "mimeType"): string {
  const mimeType = validateText(value, field, MAX_MIME_TYPE_BYTES);
  if (/[\r\n]/.test(mimeType)) throw invalidArgument(field, "contains CR or LF");
  if (!mimeType.includes("/")) throw invalidArgument(field, 'must contain "/"');
  return mimeType;
}

/**
 * A plain JSON-safe object within the size, entry and depth limits.
 * Returns a deep-frozen copy, so that later changes by the caller cannot reach the store.
 */
export function validateMetadata(value: unknown, field = "metadata"): JsonObject {
  if (!isPlainObject(value)) throw invalidArgument(field, "must be a plain object");
  let entries = 0;
  const ancestors = new Set<object>();

  const copy = (node: unknown, path: string, depth: number): JsonValue => {
    if (node === null || typeof node === "boolean") return node;
    if (typeof node === "number") {
      if (!Number.isFinite(node)) throw invalidArgument(path, "must be a finite number");
      // JSON has no negative zero (JSON.stringify(-0) is "0"): stored as 0 by every adapter
      // that keeps JSON, so every adapter keeps 0, and a record reads back as it was stored.
      return node === 0 ? 0 : node;
    }
    if (typeof node === "string") {
      if (!node.isWellFormed()) throw invalidArgument(path, "contains a lone UTF-16 surrogate");
      return node;
    }
    if (typeof node !== "object") throw invalidArgument(path, `is not JSON (${typeof node})`);
    if (ancestors.has(node)) throw invalidArgument(path, "is a cycle");
    if (depth > MAX_METADATA_DEPTH) {
      throw invalidArgument(path, `is nested deeper than ${MAX_METADATA_DEPTH} levels`);
    }
    ancestors.add(node);
    let result: JsonValue;
    if (Array.isArray(node)) {
      if (Object.getPrototypeOf(node) !== Array.prototype)
        throw invalidArgument(path, "is not a plain array");
      const items: JsonValue[] = [];
      for (let i = 0; i < node.length; i++) {
        if (!Object.hasOwn(node, i)) throw invalidArgument(`${path}[${i}]`, "is a hole");
        countEntry(path);
        items.push(copy(node[i], `${path}[${i}]`, depth + 1));
      }
      result = Object.freeze(items) as JsonValue[];
    } else {
      if (!isPlainObject(node)) throw invalidArgument(path, "is not a plain object");
      if (Object.getOwnPropertySymbols(node).length > 0)
        throw invalidArgument(path, "has symbol keys");
      const object: JsonObject = {};
      for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(node))) {
        const keyPath = `${path}.${key}`;
        if (!key.isWellFormed())
          throw invalidArgument(path, "has a key with a lone UTF-16 surrogate");
        if (!("value" in descriptor)) throw invalidArgument(keyPath, "is an accessor");
        if (!descriptor.enumerable) throw invalidArgument(keyPath, "is not enumerable");
        countEntry(path);
        Object.defineProperty(object, key, {
          value: copy(descriptor.value, keyPath, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      result = Object.freeze(object);
    }
    ancestors.delete(node);
    return result;
  };

  const countEntry = (path: string) => {
    entries += 1;
    if (entries > MAX_METADATA_ENTRIES) {
      throw invalidArgument(path, `metadata has more than ${MAX_METADATA_ENTRIES} entries`);
    }
  };

  const result = copy(value, field, 1) as JsonObject;
  if (utf8ByteLength(JSON.stringify(result)) > MAX_METADATA_BYTES) {
    throw invalidArgument(field, `is larger than ${MAX_METADATA_BYTES} bytes as UTF-8 JSON`);
  }
  return result;
}

/** Rejects anything but a plain object whose keys are all in `allowed`. */
export function validateOptionKeys(
  value: unknown,
  allowed: readonly string[],
  field = "options",
): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw invalidArgument(field, "must be a plain object");
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalidArgument(`${field}.${key}`, "is not a known option");
  }
  return value;
}

export function validatePositiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalidArgument(field, "must be a positive integer");
  }
  return value;
}
