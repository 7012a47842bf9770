/** Where each piece of state lives under the state root. One place, so no path is built twice. */
import { join } from "node:path";
import { AppError } from "../base/errors.ts";
import { ensurePrivateDir } from "./private_dir.ts";

/** Unix sockets have a ~104-byte path limit (macOS); refuse clearly before tmux fails obscurely. */
const SOCKET_PATH_MAX = 100;

/** The layout of the state root. */
export class StateLayout {
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  /** Creates the root and its fixed subdirectories, owner-only. @throws {AppError} STATE_ROOT_INVALID */
  ensure(): void {
    ensurePrivateDir(this.root);
    ensurePrivateDir(this.sessionsDir);
    ensurePrivateDir(this.scratchDir);
    ensurePrivateDir(this.shellDir);
    if (new TextEncoder().encode(this.socketPath).length > SOCKET_PATH_MAX) {
      throw new AppError(
        "STATE_ROOT_INVALID",
        `Cannot place the tmux socket: its path is longer than ${SOCKET_PATH_MAX} bytes`,
        {
          suggestion: "set AITERM_STATE_DIR (or XDG_STATE_HOME) to a shorter directory",
        },
      );
    }
  }

  get socketPath(): string {
    return join(this.root, "tmux.sock");
  }
  /** The tmux server's recorded pid and start identity (platform/tmux/tmux_server.ts). */
  get tmuxServerRecord(): string {
    return join(this.root, "tmux.server.json");
  }
  get sessionsDir(): string {
    return join(this.root, "sessions");
  }
  get shellDir(): string {
    return join(this.root, "shell");
  }
  get scratchDir(): string {
    return join(this.root, "scratch");
  }
  sessionDir(id: string): string {
    return join(this.sessionsDir, id);
  }
  sessionMeta(id: string): string {
    return join(this.sessionDir(id), "meta.json");
  }
  sessionLogDir(id: string): string {
    return join(this.sessionDir(id), "log");
  }
  sessionCursor(id: string): string {
    return join(this.sessionDir(id), "cursor.json");
  }
  sessionSendLock(id: string): string {
    return join(this.sessionDir(id), "send.lock");
  }
  sessionLastCommand(id: string): string {
    return join(this.sessionDir(id), "lastcmd.json");
  }
}
