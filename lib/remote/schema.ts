/** The `remote` input field every relayable tool accepts, and the fields a relayed result gains. */
import { z } from "zod";
import { sshOptionProblem } from "./ssh_options.ts";

/** Where a tool call runs: another host's aiterm-mcp, reached through ssh. Nothing here is ever stored. */
export const RemoteSchema = z.object({
  host: z.string().regex(/^(?!-)[A-Za-z0-9._%:\[\]-]{1,255}$/, "must be a host name, address or ssh_config alias")
    .describe("Name, address or ssh_config Host alias"),
  user: z.string().regex(/^(?!-)[A-Za-z0-9._@\\-]{1,128}$/, "must be a user name").optional()
    .describe("Remote user (default: ssh_config, else yours)"),
  port: z.number().int().min(1).max(65535).optional().describe("ssh port (default: ssh_config, else 22)"),
  identity_file: z.string().min(1).max(4096).regex(/^[^\r\n]+$/, "must be one line")
    .refine((p) => !p.includes("${"), "must not hold ${…} (ssh would expand an environment variable)").optional()
    .describe("Private key file (ssh -i)"),
  passphrase: z.string().min(1).max(4096).optional().describe(
    "Key passphrase, held in memory only; not with passphrase_env",
  ),
  passphrase_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name").optional()
    .describe("Server environment variable holding the passphrase"),
  ssh_options: z.array(
    z.string().max(4096).superRefine((option, ctx) => {
      const problem = sshOptionProblem(option);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  ).max(32).optional().describe(
    "ssh -o Key=Value options from an allow-list (host keys, algorithms, ProxyJump, …); ones that run programs, read other files, forward, or that aiterm manages are refused: put those in ssh_config",
  ),
}).strict().refine((r) => !(r.passphrase !== undefined && r.passphrase_env !== undefined), {
  message: "passphrase and passphrase_env are exclusive",
  path: ["passphrase_env"],
}).describe(
  "Another host, via ssh (its aiterm-mcp; no port is opened there; BatchMode unless a passphrase is given)",
);

/** A validated `remote` value. */
export type RemoteTarget = z.output<typeof RemoteSchema>;

/** Optional output fields of a relayed result. */
export const REMOTE_RESULT_FIELDS = {
  remote_host: z.string().optional().describe("Set when the call ran on a remote host: that host"),
  remote_version: z.string().optional().describe("Set when the call ran on a remote host: its aiterm version"),
};
