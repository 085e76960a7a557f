import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    s3Endpoint: string;
    azureConnectionString: string;
  }
}

/** The PostgreSQL server the postgres package's global setup started (or found). */
export const databaseUrl = (): string => inject("databaseUrl");

/** The S3-compatible server (moto) the s3 package's global setup started (or found). */
export const s3Endpoint = (): string => inject("s3Endpoint");

/** The Azure Blob service (Azurite) the azure package's global setup started (or found). */
export const azureConnectionString = (): string => inject("azureConnectionString");
