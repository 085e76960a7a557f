import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TRACING_PACKAGES } from "../src/serve-tracing.js";
import { BIN, cli, withTempDir } from "./support/cli.js";

const HIDE_PACKAGES = fileURLToPath(new URL("./support/hide-packages.mjs", import.meta.url));

/** `serve` in a project without the tracing SDK (optional peers the user did not install). */
function serveWithoutTracingSdk(cwd: string, env: NodeJS.ProcessEnv) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")),
  );
  return spawn(
    process.execPath,
    ["--import", HIDE_PACKAGES, BIN, "serve", "--port", "0", "--store", "memory:", "--json"],
    {
      cwd,
      env: { ...clean, ...env, ARTIFACT_KIT_TEST_HIDE: TRACING_PACKAGES.join(",") },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

// `serve` with the standard OTel variables, exporting to a real OTLP/HTTP receiver: a local
// HTTP server that keeps every JSON export request it is sent.

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  name: string;
  attributes: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

async function startReceiver() {
  const exports: { path: string; body: OtlpExport }[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    exports.push({ path: request.url ?? "", body: JSON.parse(Buffer.concat(chunks).toString()) });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, exports, close: () => server.close() };
}

const attributesOf = (attributes: OtlpAttribute[]) =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? Number(value.intValue)]),
  );

describe("artifact-kit serve tracing", () => {
  it("exports a span per store call over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    const receiver = await startReceiver();
    try {
      await withTempDir(async (cwd) => {
        const token = "serve-tracing-token-0123456789";
        const child = spawn(
          process.execPath,
          [BIN, "serve", "--port", "0", "--store", "memory:", "--json"],
          {
            cwd,
            env: {
              ...process.env,
              ARTIFACT_KIT_API_TOKEN: token,
              OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
              OTEL_SERVICE_NAME: "serve-under-test",
            },
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        try {
          const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
          const { url } = JSON.parse(line) as { url: string };
          const headers = { authorization: `Bearer ${token}` };
          expect((await fetch(`${url}/v1/apps/private-app/names`, { headers })).status).toBe(200);
        } finally {
          child.kill("SIGTERM");
        }
        const [code] = (await once(child, "exit")) as [number | null];
        expect(code).toBe(0);
      });
      // Exported at shutdown, before the process exits.
      expect(receiver.exports.map((sent) => sent.path)).toEqual(["/v1/traces"]);
      const [resourceSpans] = receiver.exports[0]?.body.resourceSpans ?? [];
      expect(attributesOf(resourceSpans?.resource.attributes ?? [])["service.name"]).toBe(
        "serve-under-test",
      );
      const spans = resourceSpans?.scopeSpans.flatMap((scope) => scope.spans) ?? [];
      const listNames = spans.find((span) => span.name === "artifact.list_names");
      expect(attributesOf(listNames?.attributes ?? [])).toMatchObject({
        "artifact.operation": "list_names",
        "artifact.adapter": "memory",
        "artifact.scope.kind": "app",
        "artifact.outcome": "ok",
      });
      expect(JSON.stringify(receiver.exports)).not.toContain("private-app");
    } finally {
      receiver.close();
    }
  });

  it("serves without the tracing SDK installed, and names its install line when asked to trace", async () => {
    await withTempDir(async (cwd) => {
      const plain = serveWithoutTracingSdk(cwd, {});
      try {
        const [line] = (await once(createInterface({ input: plain.stdout }), "line")) as [string];
        const { url, token } = JSON.parse(line) as { url: string; token: string };
        const headers = { authorization: `Bearer ${token}` };
        expect((await fetch(`${url}/v1/apps/plain/names`, { headers })).status).toBe(200);
      } finally {
        // Not its exit code: with module hooks registered (the hiding above), a SIGTERM sent
        // right after the first line kills the process before serve's own handler runs.
        plain.kill("SIGTERM");
        await once(plain, "exit");
      }

      const traced = serveWithoutTracingSdk(cwd, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      });
      let stdout = "";
      traced.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      expect(await once(traced, "exit")).toEqual([2, null]);
      expect(JSON.parse(stdout)).toMatchObject({
        error: {
          code: "invalid_argument",
          detail: { field: "OTEL_EXPORTER_OTLP_ENDPOINT" },
          message: expect.stringContaining(`npm install ${TRACING_PACKAGES.join(" ")}`),
        },
      });
    });
  });

  it("refuses an exporter it does not support, before serving", async () => {
    await withTempDir(async (cwd) => {
      const result = await cli(["serve", "--port", "0", "--json"], {
        cwd,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_EXPORTER: "zipkin" },
      });
      expect(result.code).not.toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        error: { code: "invalid_argument", detail: { field: "OTEL_TRACES_EXPORTER" } },
      });
    });
  });
});
