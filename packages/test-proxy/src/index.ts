export {
  type CannedAnswer,
  type Fault,
  FaultProxy,
  type FaultProxyOptions,
  type SeenRequest,
} from "./fault-proxy.js";
export { seededRandom } from "./seeded-random.js";
export { type ArmedFault, type TcpFault, TcpFaultProxy } from "./tcp-fault-proxy.js";
export {
  httpAnswers,
  startTestServer,
  type TestServerOptions,
  testServerSetup,
} from "./test-server.js";
