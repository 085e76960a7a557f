import { type ArtifactService, invalidArgument } from "@artifact-kit/core";
import { withTelemetry } from "@artifact-kit/otel";
import type * as ExporterPackage from "@opentelemetry/exporter-trace-otlp-http";
import type * as ResourcesPackage from "@opentelemetry/resources";
import type * as SdkPackage from "@opentelemetry/sdk-trace-base";
import { importOptional } from "./optional-packages.js";

/** Optional peers of the CLI, in the order `npm install` should name them. */
export const TRACING_PACKAGES = [
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/resources",
] as const;

/** How `serve` traces its store: a pass-through unless the environment asks for tracing. */
interface ServeTracing {
  traced(service: ArtifactService): ArtifactService;
  /** Exports what is still batched; call once the API is closed. */
  shutdown(): Promise<void>;
}

const untraced: ServeTracing = {
  traced: (service) => service,
  shutdown: async () => undefined,
};

/**
 * `serve` exports its own traces when the standard OpenTelemetry variables ask for it:
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set (OTLP over HTTP with
 * JSON; headers and timeout from the matching OTEL_EXPORTER_OTLP_* variables), unless
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES describe the process (service.name defaults to "artifact-kit").
 * The SDK is loaded only then, so a plain `serve` pays nothing for it; its packages are
 * optional peers, installed by whoever exports traces (invalid_argument naming the npm
 * install line when they are missing).
 */
export async function startServeTracing(
  store: string,
  env: NodeJS.ProcessEnv = process.env,
  load: (specifier: string) => Promise<unknown> = (specifier) => import(specifier),
): Promise<ServeTracing> {
  if (!tracingRequested(env)) return untraced;
  const [exporterPackage, sdkPackage, resourcesPackage] = await importOptional(
    TRACING_PACKAGES,
    { field: "OTEL_EXPORTER_OTLP_ENDPOINT", purpose: "tracing (an OTLP endpoint is set)" },
    load,
  );
  const { OTLPTraceExporter } = exporterPackage as typeof ExporterPackage;
  const { BasicTracerProvider, BatchSpanProcessor } = sdkPackage as typeof SdkPackage;
  const resources = resourcesPackage as typeof ResourcesPackage;
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "artifact-kit" }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // artifact.adapter is the store's kind ("fs", "memory", "gcs"), never its location.
  const adapter = store.slice(0, Math.max(store.indexOf(":"), 0)) || "store";
  return {
    traced: (service) => withTelemetry(service, { tracerProvider, adapter }),
    shutdown: () => tracerProvider.shutdown(),
  };
}

function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() || "otlp";
  if (exporter === "none") return false;
  if (exporter !== "otlp") {
    throw invalidArgument("OTEL_TRACES_EXPORTER", 'serve supports "otlp" and "none"');
  }
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
