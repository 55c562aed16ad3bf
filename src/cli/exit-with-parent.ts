import { readFileSync } from "node:fs";

/**
 * Exits when the process that started the CLI is gone. `npm start` and `npx` put npm (and sometimes
 * a shell) between the caller and the mock: when the caller kills npm with SIGTERM, the shell in
 * between can stay, waiting on us, so the mock watches every ancestor up to the first that is not a
 * package runner or shell (on Linux, read from /proc; elsewhere, the direct parent only). A real
 * timer, unref'd: it must run whatever the mock's clock does, and never keep the process alive.
 */
export function exitWithParent(onParentGone: () => void, everyMs = 500): void {
  const watched = ancestors();
  const timer = setInterval(() => {
    const gone = process.ppid !== watched[0] || watched.slice(1).some((pid) => !alive(pid));
    if (gone) {
      clearInterval(timer);
      onParentGone();
    }
  }, everyMs);
  timer.unref();
}

/** Whether `--exit-with-parent` is on: as asked, else when `npm start` or `npx` (npm sets these) started the CLI. */
export function exitsWithParent(asked: boolean | undefined): boolean {
  return asked ?? (process.env.npm_command === "exec" || process.env.npm_lifecycle_event === "start");
}

const LAUNCHERS = /^(npm|npx|node|sh|bash|dash|zsh|pnpm|yarn|npm exec.*|npm-cli\.js)$/;

/** The parent, and its ancestors while they are launchers (npm, npx, node running npm, a shell). */
function ancestors(): number[] {
  const pids = [process.ppid];
  try {
    let pid = process.ppid;
    for (let depth = 0; depth < 4; depth++) {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // pid (comm) state ppid …: comm may hold spaces, so read after the last ")".
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!LAUNCHERS.test(comm)) break;
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!ppid || ppid === 1) break;
      pids.push(ppid);
      pid = ppid;
    }
  } catch {
    // No /proc (macOS, Windows): the direct parent is all we can watch.
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
