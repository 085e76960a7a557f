import { Command, Option } from "commander";
import { registerCopy } from "./commands/copy.js";
import { registerDemo } from "./commands/demo.js";
import { registerGet } from "./commands/get.js";
import { registerInfo } from "./commands/info.js";
import { registerLs } from "./commands/ls.js";
import { registerPut } from "./commands/put.js";
import { registerRepair } from "./commands/repair.js";
import { registerRm } from "./commands/rm.js";
import { registerRmScope } from "./commands/rm-scope.js";
import { registerServe } from "./commands/serve.js";
import { registerStats } from "./commands/stats.js";
import { registerVersions } from "./commands/versions.js";
import { EXIT_CODES } from "./exit-codes.js";
import { SCOPE_USAGE } from "./scope-options.js";
import { DEFAULT_STORE, STORE_URI_FORMS } from "./store.js";

/** The commands that act on one exact scope: their usage line starts with the scope flags. */
const SCOPED_COMMANDS = new Set([
  "ls",
  "versions",
  "info",
  "get",
  "put",
  "rm",
  "rm-scope",
  "stats",
]);

function buildProgram(version: string): Command {
  const program = new Command("artifact-kit")
    .description("Inspect, delete, repair and move artifact-kit data.")
    .version(version)
    .addOption(
      new Option("--store <uri>", STORE_URI_FORMS).env("ARTIFACT_KIT_STORE").default(DEFAULT_STORE),
    )
    .addOption(
      new Option("--gcs-endpoint <url>", "API endpoint of a GCS emulator (fake-gcs-server)").env(
        "ARTIFACT_KIT_GCS_ENDPOINT",
      ),
    )
    .addOption(
      new Option(
        "--max-artifact-bytes <n>",
        "the store's bound on one artifact (default the adapter's, 64 MiB)",
      ).env("ARTIFACT_KIT_MAX_ARTIFACT_BYTES"),
    )
    .addOption(
      new Option("--max-page-limit <n>", "the store's cap on one page of a listing").env(
        "ARTIFACT_KIT_MAX_PAGE_LIMIT",
      ),
    )
    .option("--app <app>", "scope: the app")
    .option("--user <user>", "scope: the user (with --app)")
    .option("--session <session>", "scope: the session (with --app and --user)")
    .option("--json", "print one JSON document on stdout (errors too)", false)
    .option("--verbose", "print stack traces of failures on stderr", false)
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(artifact-kit --help lists the commands and options)");
  for (const register of [
    registerLs,
    registerVersions,
    registerInfo,
    registerGet,
    registerPut,
    registerRm,
    registerRmScope,
    registerRepair,
    registerStats,
    registerCopy,
    registerDemo,
    registerServe,
  ]) {
    register(program);
  }
  for (const command of program.commands) {
    // Subcommands inherit exitOverride only when they are created after it; set it on each.
    command.exitOverride();
    if (SCOPED_COMMANDS.has(command.name())) command.usage(`${SCOPE_USAGE} ${command.usage()}`);
  }
  return program;
}

/** Parses and runs one command line; the exit code is left in process.exitCode. */
export async function runCli(argv: readonly string[], version: string): Promise<void> {
  const program = buildProgram(version);
  try {
    await program.parseAsync(argv as string[]);
  } catch (error) {
    // Commander has printed its message; help and --version end here with code 0.
    const exitCode = (error as { exitCode?: number }).exitCode;
    process.exitCode = exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.invalidArgument;
  }
}
