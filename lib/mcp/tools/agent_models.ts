import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { fetchCatalog } from "../../agent/mod.ts";
import { AppError } from "../../errors.ts";
import { getHarness, harnessBinary, resolveBinary } from "../../../harnesses/mod.ts";
import { defineTool } from "../tool.ts";
import { HarnessSchema } from "./agent_schemas.ts";

export const agentModels = defineTool({
  name: "agent_models",
  title: "List a harness's models",
  description:
    "The live model catalog of a harness, read from its own CLI (no prompt or turn is sent): model ids, reasoning efforts per model, defaults, fast tier. No fallback list: a CLI that cannot list its models is MODEL_CATALOG_UNAVAILABLE.",
  input: z.object({
    harness: HarnessSchema,
    include_hidden: z.boolean().default(false).describe("Include hidden models"),
    remote: RemoteSchema.optional(),
  })
    .strict(),
  output: z.object({
    schema: z.literal("aiterm.agent-models.v1").describe("Result schema id"),
    harness: z.string().describe("Harness"),
    source: z.string().describe("Where the catalog came from"),
    default_model: z.string().nullable().describe("The CLI's default model"),
    models: z.array(
      z.object({
        id: z.string().describe("Model id to pass as model"),
        display_name: z.string().nullable().describe("Human name"),
        efforts: z.array(z.string()).describe("Accepted reasoning efforts"),
        default_effort: z.string().nullable().describe("Default effort"),
        hidden: z.boolean().describe("Hidden in the CLI's own picker"),
        fast: z.boolean().describe("Has a fast tier"),
      }).strict(),
    ).describe("Models"),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const adapter = getHarness(input.harness);
    if (!adapter) throw new AppError("HARNESS_NOT_SUPPORTED", `No adapter for ${input.harness} in this version`);
    const spec = harnessBinary(input.harness);
    const bin = resolveBinary(spec, deps.env);
    if (!bin) {
      throw new AppError("HARNESS_NOT_INSTALLED", `Cannot list models: ${input.harness} is not installed`, {
        suggestion: `install it or set ${spec.envOverride}`,
      });
    }
    const catalog = await fetchCatalog(adapter, bin, deps.env);
    return {
      schema: "aiterm.agent-models.v1" as const,
      harness: input.harness,
      source: catalog.source,
      default_model: catalog.defaultModel,
      models: catalog.models.filter((m) => input.include_hidden || !m.hidden).map((m) => ({
        id: m.id,
        display_name: m.displayName,
        efforts: m.efforts,
        default_effort: m.defaultEffort,
        hidden: m.hidden,
        fast: m.fast,
      })),
    };
  },
});
