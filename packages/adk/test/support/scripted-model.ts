import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from "@google/adk";

/** One step of a script: the model calls one function with these arguments, or answers in text. */
export type ScriptStep =
  | { readonly call: string; readonly args: Record<string, unknown> }
  | { readonly answer: string };

/**
 * A model that plays a fixed script instead of calling a network API: each request gets
 * the next step. It keeps a copy of every request it saw, as the request stood when sent.
 */
/** What the tests read of a request: the conversation and the config (system instruction). */
export type SeenRequest = Pick<LlmRequest, "contents" | "config">;

export class ScriptedModel extends BaseLlm {
  readonly requests: SeenRequest[] = [];
  readonly #script: ScriptStep[];

  constructor(script: readonly ScriptStep[]) {
    super({ model: "scripted" });
    this.#script = [...script];
  }

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const { contents, config } = request;
    this.requests.push(structuredClone(config === undefined ? { contents } : { contents, config }));
    const step = this.#script.shift();
    if (!step) throw new Error("the script has no step left for this request");
    yield "answer" in step
      ? { content: { role: "model", parts: [{ text: step.answer }] } }
      : {
          content: {
            role: "model",
            parts: [{ functionCall: { name: step.call, args: step.args } }],
          },
        };
  }

  override connect(): Promise<BaseLlmConnection> {
    return Promise.reject(new Error("a scripted model has no live connection"));
  }
}
