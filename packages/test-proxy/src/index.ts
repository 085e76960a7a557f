export {
  type CannedAnswer,
  type Fault,
  FaultProxy,
  type FaultProxyOptions,
  type SeenRequest,
} from "./fault-proxy.js";
