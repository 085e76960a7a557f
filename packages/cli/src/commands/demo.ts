import type { Command } from "commander";
import { describeStore, storeLocation, withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { walkthrough } from "../walkthrough.js";

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "walk through the contract on the store (a new session per run: earlier runs stay readable)",
    )
    .action(
      action(async (options) => {
        const session = new Date().toISOString();
        // As the user can find it, and never with a password.
        const store = describeStore(storeLocation(options));
        const steps: string[] = [];
        // Human output streams as the walkthrough goes; --json prints it all at the end.
        const log = (line: string) => {
          steps.push(line);
          if (!options.json) process.stdout.write(`${line}\n`);
        };
        if (!options.json) {
          process.stdout.write(`artifact-kit demo: ${store}, app "demo", session ${session}\n\n`);
        }
        await withStore(options, (service) => walkthrough(service, session, log), { create: true });
        emit(options, { store, session, steps }, []);
        return undefined;
      }),
    );
}
