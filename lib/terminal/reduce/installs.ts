/**
 * Reducers for package installs (npm/pnpm/yarn, pip/uv, apt/apt-get): progress and per-package
 * chatter are dropped; warnings, errors and the final summary are kept.
 */

import { dedupeConsecutive, plural, type Reducer } from "./util.ts";

/** npm install/ci: warnings, errors, the added/changed/audited summary and vulnerability counts. */
export function reduceNpmInstall(lines: readonly string[]): string[] | null {
  const keep = (l: string): boolean =>
    /^npm (warn|WARN|error|ERR!)/.test(l) ||
    /^(added|removed|changed|up to date|audited) /.test(l) ||
    /\bvulnerabilit(y|ies)\b/.test(l) && !/^\s*run `npm/.test(l) ||
    /^(Packages|Progress|Done|Already up[- ]to[- ]date|ERR_PNPM|\s*WARN|YN\d+|➤ YN|error |warning )/.test(l) ||
    /^(dependencies|devDependencies):$/.test(l) || /^[+-] \S+ \d/.test(l);
  if (
    !lines.some((l) =>
      /^(added|removed|changed|up to date|audited|npm (error|ERR!)|Packages:|Done in|ERR_PNPM)/.test(l)
    )
  ) {
    return null;
  }
  return dedupeConsecutive(lines.filter(keep).map((l) => l.replace(/^\s*[⠁-⣿]+\s*/, "")));
}

/** pip/uv install: warnings, errors, `Successfully installed ...` and a count of satisfied requirements. */
export function reducePipInstall(lines: readonly string[]): string[] | null {
  if (
    !lines.some((l) =>
      /^(Successfully installed|ERROR:|Requirement already satisfied|Installed \d+ packages?|Processing |Collecting )/
        .test(l)
    )
  ) {
    return null;
  }
  const out: string[] = [];
  let satisfied = 0;
  for (const line of lines) {
    if (/^Requirement already satisfied/.test(line)) satisfied++;
    else if (/^\s*(ERROR|WARNING|error|warning)\b/.test(line) || /^\s*[×╰]/.test(line)) out.push(line.trim());
    else if (
      /^(Successfully (installed|built|uninstalled)|Installed \d+|Uninstalled \d+|Resolved \d+|Audited \d+)/.test(line)
    ) {
      out.push(line);
    }
  }
  if (satisfied > 0) out.push(`(${plural(satisfied, "requirement")} already satisfied)`);
  return out;
}

/** apt/apt-get install: package list headers, the upgrade/install counts, sizes, warnings and errors. */
export function reduceAptInstall(lines: readonly string[]): string[] | null {
  if (!lines.some((l) => /^(\d+ upgraded, \d+ newly installed|E: |Reading package lists)/.test(l))) return null;
  const out: string[] = [];
  let setUp = 0;
  let inList = false;
  for (const line of lines) {
    if (
      /^The following (NEW |additional )?packages? (will be|have been|are)/.test(line) ||
      /^Suggested packages:/.test(line) ||
      /^Recommended packages:/.test(line)
    ) {
      inList = true;
      out.push(line);
      continue;
    }
    if (inList && /^\s+\S/.test(line)) {
      out.push(line);
      continue;
    }
    inList = false;
    if (/^Setting up /.test(line)) setUp++;
    else if (
      /^(E|W|N): /.test(line) || /^(dpkg|apt): /.test(line) || /^\d+ upgraded, /.test(line) ||
      /^(Need to get|After this operation)/.test(line) || /^Errors were encountered/.test(line) ||
      /already the newest version/.test(line)
    ) out.push(line);
  }
  if (setUp > 0) out.push(`(${plural(setUp, "package")} set up)`);
  return out;
}

/** Install reducers by name. */
export const INSTALL_REDUCERS: Record<string, Reducer> = {
  "npm-install": reduceNpmInstall,
  "pip-install": reducePipInstall,
  "apt-install": reduceAptInstall,
};
