// `node --import this-file`: packages named in ARTIFACT_KIT_TEST_HIDE (comma-separated)
// cannot be found, as in a project that did not install those optional peers.
import { register } from "node:module";

register("./hide-packages-hooks.mjs", import.meta.url);
