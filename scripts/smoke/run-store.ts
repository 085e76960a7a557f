import { InMemoryRunStore } from "@artifact-kit/run-store";

const store = new InMemoryRunStore();
await store.register("run-1", "step-1", "out/report.md", "# Report");
const content = await store.find("run-1", "out/report.md");
if (content !== "# Report") throw new Error(`round trip failed: ${String(content)}`);
console.log("run-store: registered a file and found it");
