import { readFile } from "node:fs/promises";
import { invalidArgument, type Scope, scopeKey, validateScope } from "@artifact-kit/core";
import { localFileError } from "../local-file.js";

/** How a scope is written on the command line and in a scopes file. */
export const SCOPE_FORM = "APP[/USER[/SESSION]]";

/**
 * `APP`, `APP/USER` or `APP/USER/SESSION`, each part percent-decoded (an id holding `/` or
 * `%` writes it `%2F`, `%25`). Ids are validated by core, exactly as the adapters do.
 */
export function parseScopeArgument(text: string, field = "scope"): Scope {
  const parts = text.split("/").map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw invalidArgument(field, `"${text}" has a malformed %-escape (write / as %2F, % as %25)`);
    }
  });
  const [app, user, session] = parts;
  if (parts.length > 3 || app === undefined) {
    throw invalidArgument(field, `"${text}" is not ${SCOPE_FORM}`);
  }
  if (user === undefined) return validateScope({ kind: "app", app });
  if (session === undefined) return validateScope({ kind: "user", app, user });
  return validateScope({ kind: "session", app, user, session });
}

/** One scope per line; blank lines and lines starting with `#` are skipped. */
export async function readScopesFile(path: string): Promise<Scope[]> {
  const text = await readFile(path, "utf8").catch((error) => {
    throw localFileError("scopes-file", path, error);
  });
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => parseScopeArgument(line, "scopes-file"));
}

/** The scopes in the order first given, each once. */
export function distinctScopes(scopes: readonly Scope[]): Scope[] {
  const seen = new Map<string, Scope>();
  for (const scope of scopes) if (!seen.has(scopeKey(scope))) seen.set(scopeKey(scope), scope);
  return [...seen.values()];
}
