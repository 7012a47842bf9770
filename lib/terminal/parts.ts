/**
 * What the readers (./read.ts, ./observe.ts) use of the terminal service. {@link Terminal} builds one from its
 * parts and hands it to them; nothing outside lib/terminal sees it (mod.ts does not export it), so the layers above
 * reach a session only through Terminal's methods.
 */
import type { HotFiles, StateLayout } from "../../state/mod.ts";
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";
import type { LastSend } from "./files/last_send.ts";
import type { SessionMeta } from "./files/session_meta.ts";
import type { LogSupervisor } from "./log_supervisor.ts";
import type { PaneBatch } from "./pane_batch.ts";
import type { ReadBuffers } from "./read_page.ts";
import type { ReadGate } from "./read_gate.ts";

/** See the module doc. */
export interface TerminalParts {
  readonly mux: Multiplexer;
  readonly layout: StateLayout;
  /** Log writer liveness and retention for every session (./log_supervisor.ts). */
  readonly logs: LogSupervisor;
  /** Pane questions to the multiplexer, batched across concurrent waits (./pane_batch.ts). */
  readonly panes: PaneBatch;
  /** Log read buffers kept between reads (./read_page.ts). */
  readonly readBuffers: ReadBuffers;
  /** One consuming read per session at a time (./read_gate.ts). */
  readonly readGate: ReadGate;
  /** The read cursors' and last sends' files, replaced without making or freeing an inode (state/atomic.ts). */
  readonly hotFiles: HotFiles;
  /** The meta of a session aiterm opened; null for unknown or human sessions (INVALID_ARGUMENT for a bad id). */
  meta(id: string): Promise<SessionMeta | null>;
  /** The meta of a session aiterm opened, with its pane when it is still running. */
  describe(id: string): Promise<{ meta: SessionMeta | null; live: MuxSession | null }>;
  /** Applies log retention to one session. */
  prune(meta: SessionMeta): Promise<void>;
  /** TMUX_SERVER_GONE when the reason a session's pane is missing is that the whole server is gone. */
  throwIfServerGone(id: string, action: string): Promise<void>;
  /** The last send to a session, if any. */
  lastSend(id: string): Promise<LastSend | null>;
  /** A read saw the shell take the last line typed (./send/type_ahead.ts). */
  lineTaken(id: string): void;
}
