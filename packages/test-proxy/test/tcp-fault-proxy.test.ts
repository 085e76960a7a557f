import { EventEmitter, once } from "node:events";
import {
  type AddressInfo,
  createConnection,
  createServer,
  type Server,
  type Socket,
} from "node:net";
import { afterEach, beforeEach, expect, test } from "vitest";
import { TcpFaultProxy } from "../src/index.js";

// The proxy against a real TCP server of the test's own that records what reaches it and
// answers each chunk with "ok:<bytes so far>", so a test sees exactly which bytes passed.

let server: Server;
let received: Buffer[];
/** One promise per connection the server accepted, settled when that connection closed. */
let closings: Promise<unknown>[];
let proxy: TcpFaultProxy;
/** Emits "data" each time the server receives a chunk. */
const arrivals = new EventEmitter();
beforeEach(async () => {
  received = [];
  closings = [];
  server = createServer((socket) => {
    socket.on("error", () => undefined);
    closings.push(once(socket, "close"));
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      arrivals.emit("data");
      socket.write(`ok:${Buffer.concat(received).length};`);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  proxy = await TcpFaultProxy.start({
    host: "127.0.0.1",
    port: (server.address() as AddressInfo).port,
  });
});
afterEach(async () => {
  await proxy.close();
  server.close();
});

interface Client {
  readonly socket: Socket;
  /** Resolves once the client has heard `text` from the server. */
  hears(text: string): Promise<void>;
  /** Everything the client heard, and how its connection ended. */
  readonly ended: Promise<{ heard: string; error?: string }>;
}

async function connect(): Promise<Client> {
  const socket = createConnection({ host: proxy.host, port: proxy.port });
  let heard = "";
  socket.on("data", (chunk: Buffer) => {
    heard += chunk.toString();
  });
  const ended = new Promise<{ heard: string; error?: string }>((resolve) => {
    let error: string | undefined;
    socket.on("error", (cause: NodeJS.ErrnoException) => {
      error = cause.code;
    });
    socket.on("close", () => resolve(error === undefined ? { heard } : { heard, error }));
  });
  const hears = async (text: string) => {
    while (!heard.includes(text)) await once(socket, "data");
  };
  await once(socket, "connect");
  return { socket, hears, ended };
}

/** Sends `text` and waits for the server's answer to all bytes sent so far. */
async function exchange(client: Client, text: string): Promise<void> {
  client.socket.write(text);
  await client.hears(`ok:${arrivedLength() + text.length};`);
}

/** What reached the server so far (before this exchange's bytes land). */
const arrivedLength = () => Buffer.concat(received).length;
const arrived = () => Buffer.concat(received).toString();
/** Waits until the server has seen every connection so far end: nothing more can arrive. */
const serverSideClosed = () => Promise.all(closings);

test("forwards both ways untouched when nothing is armed", async () => {
  const client = await connect();
  await exchange(client, "hello");
  expect(arrived()).toBe("hello");
  client.socket.end();
  expect((await client.ended).heard).toBe("ok:5;");
  expect(proxy.clientBytes).toBe(5);
});

test("a cut after N client bytes lets exactly N through, then closes the client", async () => {
  const client = await connect();
  await exchange(client, "abc");
  const armed = proxy.armAfterClientBytes(4, "cut");
  client.socket.write("defghij");
  const { heard } = await client.ended;
  await serverSideClosed();
  expect(armed.struck).toBe(true);
  expect(arrived()).toBe("abcdefg");
  expect(heard).toBe("ok:3;");
});

test("a reset at a text split across writes resets the client before the text is sent", async () => {
  const client = await connect();
  const armed = proxy.armAtClientText("COMMIT", "reset");
  await exchange(client, "BEGIN; COM");
  client.socket.write("MIT;");
  const { error } = await client.ended;
  await serverSideClosed();
  expect(armed.struck).toBe(true);
  expect(error).toBe("ECONNRESET");
  // "COM" had passed in the first write; the fault struck where the text completed.
  expect(arrived()).toBe("BEGIN; COM");
});

test("a dropped reply: the server gets the whole request, the client hears nothing of it", async () => {
  const client = await connect();
  await exchange(client, "first;");
  proxy.armAtClientText("second", "drop-reply");
  client.socket.write("second;");
  const { heard } = await client.ended;
  await serverSideClosed();
  expect(arrived()).toBe("first;second;");
  expect(heard).toBe("ok:6;");
});

test("a reply cut after N bytes: the server gets the request, the client hears N bytes of it", async () => {
  const client = await connect();
  await exchange(client, "first;");
  const armed = proxy.armAtClientText("second", { replyBytes: 3 });
  client.socket.write("second;");
  const { heard } = await client.ended;
  await serverSideClosed();
  expect(armed.struck).toBe(true);
  expect(arrived()).toBe("first;second;");
  expect(heard).toBe("ok:6;ok:");
});

test("a stalled reply: the server answers, the client hears nothing and stays connected", async () => {
  const client = await connect();
  await exchange(client, "first;");
  proxy.armAtClientText("second", "stall-reply");
  client.socket.write("second;");
  client.socket.write("third;");
  // The server answered "second;" and "third;": neither answer reaches the client.
  while (arrivedLength() < "first;second;third;".length) await once(arrivals, "data");
  expect(client.socket.destroyed).toBe(false);
  proxy.cutAll();
  const { heard } = await client.ended;
  expect(heard).toBe("ok:6;");
});

test("a fault at a client write lets `skip` writes pass and strikes the next one whole", async () => {
  const client = await connect();
  await exchange(client, "one;");
  const armed = proxy.armAtClientWrite(1, "cut");
  await exchange(client, "two;");
  expect(armed.struck).toBe(false);
  client.socket.write("three;");
  const { heard } = await client.ended;
  await serverSideClosed();
  expect(armed.struck).toBe(true);
  expect(arrived()).toBe("one;two;");
  expect(heard).toBe("ok:4;ok:8;");
});

test("a delay holds the bytes and then delivers them in order", async () => {
  const client = await connect();
  const armed = proxy.armAtClientText("late", { delayMs: 20 });
  client.socket.write("early;late;");
  await client.hears("ok:11;");
  expect(armed.struck).toBe(true);
  expect(arrived()).toBe("early;late;");
  client.socket.end();
  await client.ended;
});

test("refused connections are reset; the next one passes", async () => {
  proxy.refuseNext(1);
  const refused = createConnection({ host: proxy.host, port: proxy.port });
  const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
  expect(error.code).toBe("ECONNRESET");
  const client = await connect();
  await exchange(client, "again");
  expect(arrived()).toBe("again");
  client.socket.end();
  await client.ended;
});

test("a disarmed fault never strikes", async () => {
  const armed = proxy.armAtClientText("x", "cut");
  armed.disarm();
  const client = await connect();
  await exchange(client, "xxx");
  expect(armed.struck).toBe(false);
  client.socket.end();
  expect((await client.ended).heard).toBe("ok:3;");
});
