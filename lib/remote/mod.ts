/** Remote relay: run a tool call on another host's aiterm-mcp through ssh (docs/adr/0010-remote-relay.md). */
export { REMOTE_RESULT_FIELDS, RemoteSchema } from "./schema.ts";
export type { RemoteTarget } from "./schema.ts";
export {
  controlDirFor,
  parseProbe,
  relayStartFailure,
  remoteCommand,
  remoteWaitProcess,
  secretOf,
  SshConnections,
} from "./ssh.ts";
export type { PreparedRemote, RemoteShell } from "./ssh.ts";
export { runRemoteWait } from "./remote_wait.ts";
