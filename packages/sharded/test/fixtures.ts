// The router kit's instrumented workers, for the package's own tests too.
export {
  appScope,
  bytes,
  type Deferred,
  deferred,
  type Hook,
  ScriptedShards,
  type ScriptedTransfer,
} from "../src/conformance/scripted-shards.js";
