import { MemoryArtifactService } from "@artifact-kit/memory";
import { walkthrough } from "./walkthrough.js";

const service = new MemoryArtifactService();
console.log("artifact-kit demo: memory adapter\n");
try {
  await walkthrough(service, (line) => console.log(line));
} finally {
  await service.close();
}
