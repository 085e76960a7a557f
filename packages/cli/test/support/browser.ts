import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

// Chromium from Debian's packages (installed by scripts/ensure-chromium.sh when missing),
// driven by playwright-core. Tests wait on page events and selectors, never on clocks.

const ENSURE = fileURLToPath(new URL("../../scripts/ensure-chromium.sh", import.meta.url));

export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync("bash", [ENSURE], { encoding: "utf8" }).trim();
  return chromium.launch({ executablePath, args: ["--no-sandbox"] });
}

/** Signs in through the form, as a person does; the console then shows the apps. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/console/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/**
 * Collects what would show that hostile content ran: dialogs, page errors, and console
 * messages the page's CSP reports when it blocks something.
 */
export function watchForScript(page: Page): string[] {
  const seen: string[] = [];
  page.on("dialog", (dialog) => {
    seen.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => seen.push(`pageerror: ${error.message}`));
  return seen;
}
