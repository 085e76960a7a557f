import {
  ArtifactError,
  bindArtifacts,
  compareUtf8,
  isArtifactError,
  validateName,
} from "@artifact-kit/core";

validateName("reports/q1.md");
try {
  validateName("../etc/passwd");
  throw new Error("a .. segment was accepted");
} catch (error) {
  if (!isArtifactError(error, "invalid_argument")) throw error;
}
if (compareUtf8("ｚ", "😀") >= 0) throw new Error("UTF-8 order is wrong");
if (typeof bindArtifacts !== "function" || !(new ArtifactError("closed", "x") instanceof Error)) {
  throw new Error("exports are missing");
}
console.log("core: validation, ordering and errors work");
