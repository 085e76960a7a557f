export type { RepairOptions, RepairReport } from "@artifact-kit/object-store";
export type { AzureArtifactServiceBounds, AzureArtifactServiceOptions } from "./config.js";
export { AZURE_DEFAULTS } from "./config.js";
export { AzureArtifactService } from "./service.js";
