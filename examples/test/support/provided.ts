// What the postgres and s3 packages' global setups (see vitest.config.ts) provide.
declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    s3Endpoint: string;
  }
}

export {};
