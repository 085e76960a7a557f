import { invalidArgument } from "@artifact-kit/core";

/**
 * Imports packages the CLI declares as optional peers (a store's adapter and client, the
 * tracing SDK). One that is not installed is the user's to install: invalid_argument on
 * `field`, saying what `purpose` needs and the exact `npm install` line, never an internal
 * error. Any other failure to load propagates as it is.
 */
export async function importOptional(
  packages: readonly string[],
  { field, purpose }: { field: string; purpose: string },
  load: (specifier: string) => Promise<unknown>,
): Promise<readonly unknown[]> {
  const loaded = await Promise.allSettled(packages.map((name) => load(name)));
  const missing = packages.filter((name, index) => {
    const outcome = loaded[index];
    return outcome?.status === "rejected" && isMissingPackage(outcome.reason, name);
  });
  if (missing.length > 0) {
    throw invalidArgument(
      field,
      `${purpose} needs ${missing.join(" and ")}, which ${missing.length === 1 ? "is" : "are"} not installed: npm install ${missing.join(" ")}`,
    );
  }
  return loaded.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
}

/** Node's "cannot find package NAME" for this very package (not one of its own imports). */
function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = error instanceof Error ? error.message : "";
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}
