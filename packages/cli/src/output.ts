import { isArtifactError } from "@artifact-kit/core";
import type { Command } from "commander";
import { EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { type GlobalOptions, globalsOf } from "./globals.js";

/**
 * Prints a command's result: one JSON document with --json, readable lines otherwise; on
 * stdout unless stdout carries the command's data.
 */
export function emit(
  globals: GlobalOptions,
  json: unknown,
  human: readonly string[],
  stream: NodeJS.WritableStream = process.stdout,
): void {
  const text = globals.json ? JSON.stringify(json) : human.join("\n");
  if (text !== "") stream.write(`${text}\n`);
}

/**
 * Prints a failure as its code and message (on stdout as `{"error": ...}` with --json, on
 * stderr otherwise); the stack trace only with --verbose. Returns the exit code.
 */
export function reportError(
  globals: Pick<GlobalOptions, "json" | "verbose">,
  error: unknown,
): number {
  const code = isArtifactError(error) ? error.code : "internal";
  const message = error instanceof Error ? error.message : String(error);
  if (globals.json) {
    const detail = isArtifactError(error) ? error.detail : {};
    process.stdout.write(`${JSON.stringify({ error: { code, message, detail } })}\n`);
  } else {
    process.stderr.write(`artifact-kit: ${code}: ${message}\n`);
  }
  if (globals.verbose) process.stderr.write(`${describeStack(error)}\n`);
  return exitCodeFor(error);
}

function describeStack(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause === undefined ? "" : `\ncaused by: ${describeStack(error.cause)}`;
  return `${error.stack ?? error.message}${cause}`;
}

/**
 * Runs a command's body with its global options and turns the outcome into the exit code:
 * the body's own (e.g. repair finding corrupt artifacts) or the error's.
 */
export function action<Args extends unknown[], Own extends object = object>(
  body: (options: GlobalOptions & Own, ...args: Args) => Promise<number | undefined>,
): (...argsAndCommand: unknown[]) => Promise<void> {
  return async (...argsAndCommand) => {
    const command = argsAndCommand.at(-1) as Command;
    const globals = globalsOf<Own>(command);
    const args = command.processedArgs as Args;
    try {
      process.exitCode = (await body(globals, ...args)) ?? EXIT_CODES.ok;
    } catch (error) {
      process.exitCode = reportError(globals, error);
    }
  };
}
