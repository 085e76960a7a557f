import { objectStoreTestConfig } from "@artifact-kit/fault-trials/test-config";
import { defineConfig } from "vitest/config";

export default defineConfig({ test: objectStoreTestConfig });
