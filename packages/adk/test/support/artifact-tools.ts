import { BaseTool, type RunAsyncToolRequest, type SaveArtifactRequest } from "@google/adk";

type Part = SaveArtifactRequest["artifact"];
type Declaration = ReturnType<BaseTool["_getDeclaration"]>;

/** A tool ADK offers to the model by name (the scripted model needs no parameter schema). */
abstract class ScriptedTool extends BaseTool {
  override _getDeclaration(): Declaration {
    return { name: this.name, description: this.description };
  }
}

/** Saves the Part it is given under a filename, through ADK's tool context. */
export class SaveArtifactTool extends ScriptedTool {
  constructor() {
    super({ name: "save_artifact", description: "Saves a Part as an artifact." });
  }

  override async runAsync({ args, toolContext }: RunAsyncToolRequest): Promise<unknown> {
    const version = await toolContext.saveArtifact(String(args.filename), args.part as Part);
    return { version };
  }
}

/** Loads an artifact (the latest, or a given version) through ADK's tool context. */
export class ReadArtifactTool extends ScriptedTool {
  constructor() {
    super({ name: "read_artifact", description: "Reads an artifact back." });
  }

  override async runAsync({ args, toolContext }: RunAsyncToolRequest): Promise<unknown> {
    const version = typeof args.version === "number" ? args.version : undefined;
    const part = await toolContext.loadArtifact(String(args.filename), version);
    return { part: part ?? null };
  }
}

/** A tool that runs the given function with the call's arguments and tool context. */
export class CallbackTool extends ScriptedTool {
  readonly #run: (request: RunAsyncToolRequest) => Promise<unknown>;

  constructor(name: string, run: (request: RunAsyncToolRequest) => Promise<unknown>) {
    super({ name, description: `Test tool ${name}.` });
    this.#run = run;
  }

  override runAsync(request: RunAsyncToolRequest): Promise<unknown> {
    return this.#run(request);
  }
}
