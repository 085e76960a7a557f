// Takes the README's screenshots of the console (docs/console-*.png): a memory store with a
// small agent session, served by the built package, driven in Chromium. Run after a build:
//   node scripts/console-screenshots.mjs
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MemoryArtifactService } from "@artifact-kit/memory";
import { chromium } from "playwright-core";
import { startDeveloperApi } from "../dist/index.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const token = "screenshot-token-0123456789abcdef";
const encode = (text) => new TextEncoder().encode(text);
const service = new MemoryArtifactService();
const session = { kind: "session", app: "research-agent", user: "ana", session: "run-2026-12-02" };
for (const app of ["billing-agent", "research-agent", "support-agent"]) {
  await service.put({ kind: "app", app }, "config.json", encode('{"model": "small"}'), {
    mimeType: "application/json",
  });
}
for (const user of ["ana", "bo"]) {
  await service.put({ kind: "user", app: "research-agent", user }, "profile.json", encode("{}"));
}
await service.put(
  session,
  "report.md",
  encode("# Findings\n\nThe agent read **12 sources**.\n\n- prices rose 3%\n- supply is stable\n"),
  {
    mimeType: "text/markdown",
    metadata: { step: 4, tool: "summarize" },
  },
);
await service.put(
  session,
  "report.md",
  encode(
    "# Findings\n\nThe agent read **14 sources**.\n\n- prices rose 4%\n- supply is stable\n- demand grew\n",
  ),
  {
    mimeType: "text/markdown",
    metadata: { step: 7, tool: "summarize" },
  },
);
await service.put(
  session,
  "tables/prices.csv",
  encode("month,price,change\nJan,101.5,+0.4%\nFeb,103.2,+1.7%\nMar,104.9,+1.6%\n"),
  {
    mimeType: "text/csv",
  },
);
for (let i = 0; i < 40; i++) {
  await service.put(
    session,
    `steps/step-${String(i).padStart(3, "0")}.json`,
    encode(`{"i": ${i}}`),
    {
      mimeType: "application/json",
    },
  );
}

const api = await startDeveloperApi({ service, token });
const executablePath = execFileSync("bash", [`${root}scripts/ensure-chromium.sh`], {
  encoding: "utf8",
}).trim();
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
const shot = (name) => page.screenshot({ path: `${root}docs/console-${name}.png` });
await page.goto(`${api.url}/console/`);
await page.getByLabel("API token").waitFor();
await shot("sign-in");
await page.getByLabel("API token").fill(token);
await page.getByRole("button", { name: "Sign in" }).click();
const pick = async (list, text) => {
  const option = page
    .getByRole("listbox", { name: list, exact: true })
    .getByRole("option", { name: text, exact: true });
  await option.click();
};
await pick("apps", "research-agent");
await pick("users", "ana");
await pick("sessions", "run-2026-12-02");
await pick("names", "report.md");
await page.locator("article.markdown h1").waitFor();
await shot("markdown");
await page.getByLabel("Compare with").selectOption("1");
await page.locator("[data-diff=added]").first().waitFor();
await shot("diff");
await page.getByLabel("Prefix").fill("tables/");
await pick("names", "tables/prices.csv");
await page.locator("table.csv td").first().waitFor();
await shot("csv");
await page.getByRole("button", { name: "Delete all" }).click();
await page.getByRole("dialog").waitFor();
await shot("delete");
await browser.close();
await api.close();
await service.close();
