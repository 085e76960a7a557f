// The console's one way to the server: same-origin requests that carry the session cookie,
// and the CSRF token on every state change. The API token itself is sent once, at sign-in.

export type Scope =
  | { kind: "app"; app: string }
  | { kind: "user"; app: string; user: string }
  | { kind: "session"; app: string; user: string; session: string };

export interface VersionInfo {
  version: number;
  mimeType: string;
  size: number;
  sha256: string;
  createdAt: number;
}

export interface VersionDetail extends VersionInfo {
  metadata: Record<string, unknown>;
}

export interface Page<T, C> {
  items: T[];
  nextCursor?: C;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrf = "";

export function setCsrf(token: string): void {
  csrf = token;
}

export async function call<T>(
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...init.headers };
  if (method !== "GET") headers["x-csrf-token"] = csrf;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  const body =
    text === "" ? {} : (JSON.parse(text) as { error?: { code: string; message: string } });
  if (!response.ok) {
    const error = (body as { error?: { code: string; message: string } }).error;
    throw new ApiError(response.status, error?.code ?? "unavailable", error?.message ?? text);
  }
  return body as T;
}

/** Each id one percent-encoded segment, as the API takes them. */
export function scopePath(scope: Scope): string {
  const segment = encodeURIComponent;
  let path = `/v1/apps/${segment(scope.app)}`;
  if (scope.kind !== "app") path += `/users/${segment(scope.user)}`;
  if (scope.kind === "session") path += `/sessions/${segment(scope.session)}`;
  return path;
}

export function namePath(scope: Scope, name: string): string {
  return `${scopePath(scope)}/names/${encodeURIComponent(name)}`;
}

export function contentPath(
  scope: Scope,
  name: string,
  version: number,
  disposition: "inline" | "attachment",
): string {
  return `${namePath(scope, name)}/versions/${version}/content?disposition=${disposition}`;
}

export function query(entries: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

/** The first `maxBytes` of a version as text (a range request: previews never load it all). */
export async function fetchText(
  scope: Scope,
  name: string,
  version: number,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const response = await fetch(contentPath(scope, name, version, "inline"), {
    credentials: "same-origin",
    headers: { range: `bytes=0-${maxBytes - 1}` },
  });
  if (!response.ok && response.status !== 206) {
    throw new ApiError(response.status, "unavailable", "the version could not be read");
  }
  const total = Number(response.headers.get("content-range")?.split("/")[1] ?? "0");
  const text = new TextDecoder().decode(await response.arrayBuffer());
  return { text, truncated: response.status === 206 && total > maxBytes };
}

/**
 * Uploads a file with XMLHttpRequest, the one browser API that reports upload progress;
 * the browser streams the file from disk and the server streams it into the store.
 */
export function upload(
  scope: Scope,
  name: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
): Promise<VersionInfo> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", namePath(scope, name));
    xhr.setRequestHeader("x-csrf-token", csrf);
    xhr.setRequestHeader("content-type", file.type === "" ? "application/octet-stream" : file.type);
    xhr.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.total));
    xhr.addEventListener("load", () => {
      const body = JSON.parse(xhr.responseText === "" ? "{}" : xhr.responseText);
      if (xhr.status === 201) resolve(body as VersionInfo);
      else
        reject(
          new ApiError(xhr.status, body.error?.code ?? "unavailable", body.error?.message ?? ""),
        );
    });
    xhr.addEventListener("error", () =>
      reject(new ApiError(0, "unavailable", "the upload failed")),
    );
    xhr.send(file);
  });
}
