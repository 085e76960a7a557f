import { describe, expect, it } from "vitest";
import { ArtifactError, asArtifactError } from "../src/errors.js";

describe("asArtifactError", () => {
  it("keeps an ArtifactError as it is", () => {
    const original = new ArtifactError("not_found", "gone");
    expect(asArtifactError(original, "read")).toBe(original);
  });

  it("wraps any other failure as unavailable, naming the operation and the reason", () => {
    const wrapped = asArtifactError(new Error("socket hang up"), "S3 list x/");
    expect(wrapped.code).toBe("unavailable");
    expect(wrapped.message).toBe("S3 list x/ failed: socket hang up");
    expect(asArtifactError("refused", "read").message).toBe("read failed: refused");
  });

  it("says why even when the failure has no message", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED ::1:80"), {
      code: "ECONNREFUSED",
    });
    const aggregate = Object.assign(new AggregateError([refused, new Error("")], ""), {
      code: "ECONNREFUSED",
    });
    expect(asArtifactError(aggregate, "Azure list p/").message).toBe(
      "Azure list p/ failed: ECONNREFUSED, connect ECONNREFUSED ::1:80; Error",
    );
    const rest = Object.assign(new Error(""), { name: "RestError", statusCode: 500 });
    expect(asArtifactError(rest, "Azure read k").message).toBe("Azure read k failed: status 500");
    class Bare extends Error {
      override name = "Bare";
    }
    expect(asArtifactError(new Bare(""), "read").message).toBe("read failed: Bare");
  });
});
