import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { fetchCatalog } from "../../agent/mod.ts";
import { AppError } from "../../../base/errors.ts";
import { getHarness, harnessBinary, resolveBinary } from "../../../harnesses/mod.ts";
import { defineTool } from "../tool.ts";
import { HarnessSchema } from "./agent_schemas.ts";

export const agentModels = defineTool({
  name: "agent_models",
  title: "List a harness's models",
  description:
    "List the models a harness offers, read live from its own CLI (no prompt is sent): ids, reasoning efforts per model, defaults, fast tier. Call it before agent_launch or agent_configure: they accept exactly these ids (or an alias's resolved_model) and refuse others with MODEL_UNKNOWN. Read-only. No fallback list: a CLI that cannot list its models is MODEL_CATALOG_UNAVAILABLE; one not installed is HARNESS_NOT_INSTALLED; catalog unavailable: the harness has no list, ids are only shape-checked.",
  input: z.object({
    harness: HarnessSchema,
    include_hidden: z.boolean().default(false).describe("Also the models the CLI hides in its own picker"),
    remote: RemoteSchema.optional(),
  })
    .strict(),
  output: z.object({
    schema: z.literal("aiterm.agent-models.v1").describe("Result schema id"),
    harness: z.string().describe("Harness"),
    catalog: z.enum(["live", "unavailable"]).describe(
      "live: read from the CLI now; unavailable: the harness has no model list (model ids are only shape-checked)",
    ),
    source: z.string().describe("Where the catalog came from"),
    default_model: z.string().nullable().describe("The CLI's default model"),
    models: z.array(
      z.object({
        id: z.string().describe("Model id to pass as model"),
        display_name: z.string().nullable().describe("Human name"),
        resolved_model: z.string().nullable().describe("The full model id this alias stands for, when the CLI says"),
        efforts: z.array(z.string()).describe("Accepted reasoning efforts"),
        default_effort: z.string().nullable().describe("Default effort"),
        hidden: z.boolean().describe("Hidden in the CLI's own picker"),
        fast: z.boolean().describe("Has a fast tier"),
      }).strict(),
    ).describe("Models"),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
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
    if (!adapter.modelCatalog) {
      return {
        schema: "aiterm.agent-models.v1" as const,
        harness: input.harness,
        catalog: "unavailable" as const,
        source: "none",
        default_model: null,
        models: [],
      };
    }
    const catalog = await fetchCatalog(adapter, bin, deps.env, deps.catalogs);
    return {
      schema: "aiterm.agent-models.v1" as const,
      harness: input.harness,
      catalog: "live" as const,
      source: catalog.source,
      default_model: catalog.defaultModel,
      models: catalog.models.filter((m) => input.include_hidden || !m.hidden).map((m) => ({
        id: m.id,
        display_name: m.displayName,
        resolved_model: m.resolvedModel ?? null,
        efforts: m.efforts,
        default_effort: m.defaultEffort,
        hidden: m.hidden,
        fast: m.fast,
      })),
    };
  },
});
