import {
  type DeleteSelector,
  invalidArgument,
  type VersionSelector,
  validateName,
} from "@artifact-kit/core";

const VERSION_SUFFIX = /@([1-9][0-9]{0,15}|latest|all)$/;

interface NameAndSelector<S> {
  name: string;
  selector: S;
}

/**
 * Splits `NAME@VERSION`. Only a trailing `@` followed by a version number, `latest` or
 * (where allowed) `all` is a selector, so `a@b.txt` is a name; a name that itself ends in
 * `@3` is written `name@3@latest`.
 */
function splitSelector(text: string): { name: string; suffix: string | undefined } {
  const match = VERSION_SUFFIX.exec(text);
  if (!match) return { name: validateName(text), suffix: undefined };
  return { name: validateName(text.slice(0, match.index)), suffix: match[1] };
}

function toNumberOrLatest(suffix: string): number | "latest" {
  if (suffix === "latest") return "latest";
  const version = Number(suffix);
  if (!Number.isSafeInteger(version)) throw invalidArgument("version", "is too large");
  return version;
}

/** `NAME` (latest) or `NAME@VERSION|latest`. */
export function parseVersioned(text: string): NameAndSelector<VersionSelector> {
  const { name, suffix } = splitSelector(text);
  if (suffix === undefined) return { name, selector: "latest" };
  if (suffix === "all") throw invalidArgument("version", "@all only applies to rm");
  return { name, selector: toNumberOrLatest(suffix) };
}

/** `NAME@VERSION|latest|all`: a delete always names what it removes. */
export function parseDeleteTarget(text: string): NameAndSelector<DeleteSelector> {
  const { name, suffix } = splitSelector(text);
  if (suffix === undefined) {
    throw invalidArgument("version", "rm needs NAME@VERSION, NAME@latest or NAME@all");
  }
  return { name, selector: suffix === "all" ? "all" : toNumberOrLatest(suffix) };
}
