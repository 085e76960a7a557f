import {
  type BaseArtifactService,
  type BasePlugin,
  type BaseTool,
  type Event,
  InMemorySessionService,
  LlmAgent,
  Runner,
} from "@google/adk";

/** ADK's message content type, named through the runner's own parameter. */
type Content = NonNullable<Parameters<Runner["runAsync"]>[0]["newMessage"]>;

import { ScriptedModel, type ScriptStep } from "./scripted-model.js";

export const APP = "notes_app";

export interface TurnSetup {
  readonly artifactService: BaseArtifactService;
  readonly tools: BaseTool[];
  readonly plugins?: BasePlugin[];
  readonly userId?: string;
  readonly sessionId?: string;
  readonly instruction?: string;
  readonly sessionService?: InMemorySessionService;
  readonly runConfig?: Parameters<Runner["runAsync"]>[0]["runConfig"];
}

/** The user's message: text, or Parts as given. */
type Message = string | NonNullable<Content["parts"]>;

export interface Turn {
  readonly events: Event[];
  readonly model: ScriptedModel;
  readonly sessionService: InMemorySessionService;
  /** Plays one more user turn in the same session with a new script. */
  readonly again: (script: readonly ScriptStep[], message?: Message) => Promise<Turn>;
}

/** One user turn through a real ADK Runner whose model plays `script`. */
export async function runTurn(
  setup: TurnSetup,
  script: readonly ScriptStep[],
  message: Message = "go",
): Promise<Turn> {
  const { userId = "ada", sessionId = "s1" } = setup;
  const sessionService = setup.sessionService ?? new InMemorySessionService();
  if (!(await sessionService.getSession({ appName: APP, userId, sessionId }))) {
    await sessionService.createSession({ appName: APP, userId, sessionId });
  }
  const model = new ScriptedModel(script);
  const agent = new LlmAgent({
    name: "agent",
    model,
    tools: setup.tools,
    ...(setup.instruction === undefined ? {} : { instruction: setup.instruction }),
  });
  const runner = new Runner({
    appName: APP,
    agent,
    sessionService,
    artifactService: setup.artifactService,
    ...(setup.plugins === undefined ? {} : { plugins: setup.plugins }),
  });
  const events: Event[] = [];
  for await (const event of runner.runAsync({
    userId,
    sessionId,
    newMessage: {
      role: "user",
      parts: typeof message === "string" ? [{ text: message }] : message,
    },
    ...(setup.runConfig === undefined ? {} : { runConfig: setup.runConfig }),
  })) {
    events.push(event);
  }
  return {
    events,
    model,
    sessionService,
    again: (next, nextMessage) => runTurn({ ...setup, sessionService }, next, nextMessage),
  };
}

/** The response of every tool call, in order. */
export function toolResponses(events: readonly Event[]): unknown[] {
  return events.flatMap(
    (event) =>
      event.content?.parts?.flatMap((part) =>
        part.functionResponse ? [part.functionResponse.response] : [],
      ) ?? [],
  );
}
