const hidden = new Set((process.env.ARTIFACT_KIT_TEST_HIDE ?? "").split(",").filter(Boolean));

/** Node's own failure for a package that is not installed, for every hidden one. */
export async function resolve(specifier, context, next) {
  if (hidden.has(specifier)) {
    const error = new Error(
      `Cannot find package '${specifier}' imported from ${context.parentURL}`,
    );
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
