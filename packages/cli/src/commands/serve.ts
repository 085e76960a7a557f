import { randomBytes } from "node:crypto";
import { access } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { invalidArgument } from "@artifact-kit/core";
import type { Command } from "commander";
import type { ResourceProvider } from "../api/options.js";
import { parseScopePath } from "../api/route.js";
import { startDeveloperApi } from "../api/server.js";
import { withStore } from "../globals.js";
import { localFileError } from "../local-file.js";
import { action, emit, reportError } from "../output.js";
import { parseCount, parseMilliseconds } from "../parse-count.js";
import { startServeTracing } from "../serve-tracing.js";

interface ServeOptions {
  host: string;
  port: string;
  resourceProvider?: string;
  requestTimeoutMs?: string;
  allowOrigin: string[];
  scope?: string;
  maxUploadBytes?: string;
}

const TOKEN_VARIABLE = "ARTIFACT_KIT_API_TOKEN";
const LINK_SECRET_VARIABLE = "ARTIFACT_KIT_LINK_SECRET";

/**
 * A module whose default export is the ResourceProvider hook. A module that is missing or
 * does not load is the user's argument, not a bug of the CLI.
 */
async function loadResourceProvider(path: string): Promise<ResourceProvider> {
  const file = resolve(path);
  await access(file).catch((error) => {
    throw localFileError("resource-provider", file, error);
  });
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw localFileError("resource-provider", file, error);
  }
  if (typeof module.default !== "function") {
    throw invalidArgument("resource-provider", `${path} has no default export function`);
  }
  return module.default as ResourceProvider;
}

function untilStopped(): Promise<void> {
  return new Promise((done) => {
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(
      `serve the web console (at /console/) and the developer API with a bearer token from ${TOKEN_VARIABLE}, or a generated one`,
    )
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--port <port>", "port (0: any free port)", "7780")
    .option(
      "--resource-provider <module>",
      "ES module whose default export decides, per exact scope, allow or forbidden",
    )
    .option(
      "--request-timeout-ms <ms>",
      "deadline of each request, resource provider included (1..300000, default 30000)",
    )
    .option(
      "--allow-origin <origin>",
      "a browser origin (https://host[:port]) that may call the API; repeatable; default none",
      (origin: string, previous: string[]) => [...previous, origin],
      [],
    )
    .option(
      "--scope <path>",
      "serve only apps/APP[/users/USER[/sessions/SESSION]] (ids percent-encoded) and what lies under it",
    )
    .option(
      "--max-upload-bytes <n>",
      "largest upload through the console or the API (default and at most the store's maxArtifactBytes)",
    )
    .action(
      action<[], ServeOptions>(async (options) => {
        const port = parseMilliseconds(options.port, "port");
        if (port > 65_535) throw invalidArgument("port", "must be at most 65535");
        const requestTimeoutMs =
          options.requestTimeoutMs === undefined
            ? undefined
            : parseCount(options.requestTimeoutMs, "request-timeout-ms");
        const resourceProvider =
          options.resourceProvider === undefined
            ? undefined
            : await loadResourceProvider(options.resourceProvider);
        const scope = options.scope === undefined ? undefined : parseScopePath(options.scope);
        const maxUploadBytes =
          options.maxUploadBytes === undefined
            ? undefined
            : parseCount(options.maxUploadBytes, "max-upload-bytes");
        const linkSecret = process.env[LINK_SECRET_VARIABLE];
        const fromEnvironment = process.env[TOKEN_VARIABLE];
        const token = fromEnvironment ?? randomBytes(24).toString("base64url");
        const tracing = await startServeTracing(options.store);
        await withStore(options, async (service) => {
          const api = await startDeveloperApi({
            service: tracing.traced(service),
            token,
            host: options.host,
            port,
            ...(resourceProvider === undefined ? {} : { resourceProvider }),
            ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
            allowedOrigins: options.allowOrigin,
            ...(scope === undefined ? {} : { scope }),
            ...(maxUploadBytes === undefined ? {} : { maxUploadBytes }),
            ...(linkSecret === undefined ? {} : { linkSecret }),
            // The client gets the code only; the operator gets the cause here.
            onServerError: (error) => reportError({ json: false, verbose: options.verbose }, error),
          });
          // The token is printed only when it was generated here: one from the
          // environment is already the caller's.
          const printed = fromEnvironment === undefined ? { token } : {};
          emit(options, { url: api.url, ...printed }, [
            `artifact-kit developer API on ${api.url} (store ${options.store})`,
            `console: ${api.url}/console/ (sign in with the token)`,
            fromEnvironment === undefined ? `token: ${token}` : `token: from ${TOKEN_VARIABLE}`,
            "stop with Ctrl-C",
          ]);
          await untilStopped();
          await api.close();
          await tracing.shutdown();
        });
        return undefined;
      }),
    );
}
