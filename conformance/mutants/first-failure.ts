/**
 * The first check that fails, in order, with its report; undefined when every check passes
 * (a kit's checks, or any list of named laws). A mutant's tests stop there: the law named is
 * the "killed by" column of conformance/README.md.
 */
export async function firstFailure(checks: readonly { name: string; run(): Promise<unknown> }[]) {
  for (const check of checks) {
    try {
      await check.run();
    } catch (error) {
      return { name: check.name, report: error instanceof Error ? error.message : String(error) };
    }
  }
  return undefined;
}
