/**
 * Command classification: from a shell command line to the semantic reducers worth trying.
 */

/** What a command line runs, after wrappers and environment assignments are skipped. */
export interface CommandInfo {
  /** Basename of the program, without an `@version` suffix (e.g. "cargo", "pytest", "tsc"). */
  verb: string;
  /** The arguments after the verb. */
  args: string[];
}

const WRAPPERS_SIMPLE = new Set(["command", "exec", "builtin", "noglob", "nohup"]);
// Options of wrappers that take a separate value argument.
const OPTION_WITH_VALUE: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"]),
  env: new Set(["-u", "-C", "-S", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  time: new Set(["-f", "-o", "--format", "--output"]),
  npx: new Set(["-p", "--package", "-c", "--call"]),
  bunx: new Set(["-p", "--package"]),
  uv: new Set(["--with", "--python", "-p", "--directory", "--project", "--package"]),
  poetry: new Set(["-C", "--directory", "-P", "--project"]),
};

/** Split a command line into shell words (handles quotes and backslashes, not expansions). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) cur += line[++i] ?? "";
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i] ?? "";
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Split on top-level `&&`, `||`, `;` and `|`: returns the pipelines, each a list of stage strings. */
function splitCommandLine(line: string): string[][] {
  const pipelines: string[][] = [];
  let stages: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    const next = line[i + 1] ?? "";
    if (quote !== null) {
      if (c === quote) quote = null;
      cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      cur += c;
    } else if ((c === "&" && next === "&") || (c === "|" && next === "|") || c === ";") {
      stages.push(cur);
      pipelines.push(stages);
      stages = [];
      cur = "";
      if (c !== ";") i++;
    } else if (c === "|" && line[i - 1] !== ">") {
      stages.push(cur);
      cur = "";
      if (next === "&") i++;
    } else cur += c;
  }
  stages.push(cur);
  pipelines.push(stages);
  return pipelines.map((p) => p.map((s) => s.trim())).filter((p) => p.some((s) => s !== ""));
}

function basename(word: string): string {
  const base = word.slice(word.lastIndexOf("/") + 1);
  const at = base.lastIndexOf("@");
  return at > 0 ? base.slice(0, at) : base;
}

/** Skip options of a wrapper (and their values) starting at index i; returns the next index. */
function skipOptions(words: readonly string[], i: number, wrapper: string): number {
  const withValue = OPTION_WITH_VALUE[wrapper] ?? new Set<string>();
  while (i < words.length) {
    const w = words[i] ?? "";
    if (w === "--") return i + 1;
    if (!w.startsWith("-") || w === "-") return i;
    i += withValue.has(w) ? 2 : 1;
  }
  return i;
}

const ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Classify one simple command (a pipeline stage): skip assignments and wrappers, return verb + args. */
export function parseCommand(stage: string): CommandInfo | null {
  const words = shellWords(stage).filter((w) => !/^\d?[<>]/.test(w));
  let i = 0;
  for (;;) {
    while (i < words.length && ASSIGNMENT_RE.test(words[i] ?? "")) i++;
    const w = words[i];
    if (w === undefined) return null;
    const b = basename(w);
    if (WRAPPERS_SIMPLE.has(b)) i++;
    else if (b === "sudo" || b === "env" || b === "nice" || b === "time" || b === "npx" || b === "bunx") {
      i = skipOptions(words, i + 1, b);
    } else if ((b === "uv" || b === "poetry") && words[i + 1] === "run") i = skipOptions(words, i + 2, b);
    else if ((b === "pnpm" || b === "yarn") && (words[i + 1] === "exec" || words[i + 1] === "dlx")) i += 2;
    else if (b === "python" || /^python\d(\.\d+)?$/.test(b) || b === "py") {
      const m = words.indexOf("-m", i + 1);
      if (m < 0) return { verb: b, args: words.slice(i + 1) };
      i = m + 1;
    } else return { verb: b.replace(/^pip\d(\.\d+)?$/, "pip"), args: words.slice(i + 1) };
  }
}

/** The first non-option argument (a subcommand), skipping `+toolchain` and `-C dir`-style globals. */
export function subcommand(info: CommandInfo): string | undefined {
  const valueOptions = new Set(["-C", "-c", "--git-dir", "--work-tree", "--prefix", "--manifest-path", "--namespace"]);
  for (let i = 0; i < info.args.length; i++) {
    const a = info.args[i] ?? "";
    if (a.startsWith("+")) continue;
    if (valueOptions.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith("-")) continue;
    return a;
  }
  return undefined;
}

const TEST_RUNNERS_FOR_SCRIPTS = ["jest", "vitest", "node-test", "deno-test"];

/** Reducer names for one simple command, most specific first (empty = generic only). */
export function reducersForStage(info: CommandInfo): string[] {
  const sub = subcommand(info);
  const has = (flag: string): boolean => info.args.includes(flag);
  switch (info.verb) {
    case "deno":
      return sub === "test" ? ["deno-test"] : sub === "check" ? ["deno-test"] : [];
    case "node":
      return has("--test") ? ["node-test"] : [];
    case "jest":
      return ["jest"];
    case "vitest":
      return ["vitest"];
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun": {
      if (sub === "test" || sub === "t" || sub === "tst") return TEST_RUNNERS_FOR_SCRIPTS;
      if (sub === "run" || sub === "run-script") {
        const script = info.args[info.args.indexOf(sub) + 1] ?? "";
        if (/test/.test(script)) return TEST_RUNNERS_FOR_SCRIPTS;
        if (/build|check|type|tsc|lint/.test(script)) return ["tsc"];
        return [];
      }
      if (sub === undefined && info.verb === "yarn") return ["npm-install"];
      if (["install", "i", "ci", "add", "update", "up", "upgrade", "in", "isntall"].includes(sub ?? "")) {
        return ["npm-install"];
      }
      if (info.verb !== "npm" && sub !== undefined) {
        return reducersForStage({ verb: sub, args: info.args.slice(info.args.indexOf(sub) + 1) });
      }
      return [];
    }
    case "pytest":
    case "py.test":
      return ["pytest"];
    case "cargo":
      if (sub === "test" || sub === "nextest") return ["cargo-test"];
      if (sub === "build" || sub === "check" || sub === "clippy" || sub === "b" || sub === "c" || sub === "run") {
        return ["cargo-build"];
      }
      return [];
    case "go":
      return sub === "test" ? ["go-test"] : sub === "build" || sub === "vet" ? ["gcc"] : [];
    case "tsc":
    case "vue-tsc":
      return ["tsc"];
    case "make":
    case "gmake":
    case "ninja":
    case "cmake":
      return ["gcc", "tsc"];
    case "gcc":
    case "g++":
    case "cc":
    case "c++":
    case "clang":
    case "clang++":
      return ["gcc"];
    case "git":
      if (sub === "status") return ["git-status"];
      if (sub === "log") return ["git-log"];
      if (sub === "diff" || sub === "show") return has("--stat") || has("--shortstat") ? ["git-diff-stat"] : [];
      return [];
    case "grep":
    case "egrep":
    case "fgrep":
    case "rg":
    case "ag":
    case "ack":
    case "git-grep":
      return ["grep"];
    case "pip":
    case "pip3":
    case "uv":
      return sub === "install" || sub === "sync" || sub === "add" ? ["pip-install"] : [];
    case "apt":
    case "apt-get":
    case "aptitude":
      return ["install", "upgrade", "full-upgrade", "dist-upgrade", "reinstall", "update"].includes(sub ?? "")
        ? ["apt-install"]
        : [];
    default:
      return [];
  }
}

/** Reducer names to try, in order, for a full command line (the last `&&`/`;` segment decides). */
export function classifyCommand(command: string | null | undefined): string[] {
  if (command === null || command === undefined || command.trim() === "") return [];
  const pipelines = splitCommandLine(command);
  const last = pipelines[pipelines.length - 1];
  if (last === undefined) return [];
  const infos = last.map(parseCommand);
  const out: string[] = [];
  // A trailing grep filters the output; a trailing tail/head/tee/less keeps the first stage's format.
  const tail = infos[infos.length - 1];
  if (infos.length > 1 && tail !== null && tail !== undefined && reducersForStage(tail).includes("grep")) {
    out.push("grep");
  }
  const first = infos[0];
  if (first !== null && first !== undefined) {
    if (first.verb === "git" && subcommand(first) === "grep") out.push("grep");
    for (const r of reducersForStage(first)) if (!out.includes(r)) out.push(r);
  }
  return out;
}
