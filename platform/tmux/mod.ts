/**
 * The tmux backend's way in: {@link createTmux} and what the layers above read about tmux (its versions,
 * its install hint, the session argv) and the escaping chokepoint for a caller's string in a tmux argv.
 * Inside: tmux.ts (the Multiplexer), paste_args.ts (the paste and key command lists), tmux_args.ts,
 * tmux_control.ts (the `tmux -C` client and transport), control_line.ts (its line protocol),
 * tmux_server.ts (the server's identity record) and tmux_attach_gate.ts. platform/mod.ts re-exports this; the tmux files build on platform/'s own files
 * (run.ts, process.ts, …), which never import this folder (import check: folder-cycle, mod-boundary).
 */
export {
  createTmux,
  newSessionArgs,
  parseTmuxVersion,
  TMUX_FEATURES,
  TMUX_MIN_VERSION,
  tmuxInstallHint,
  type TmuxOptions,
} from "./tmux.ts";
export { tmuxArg, tmuxFormatArg, tmuxTimeFormatArg } from "./tmux_args.ts";
