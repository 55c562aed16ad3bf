import { watch, statSync, type FSWatcher } from "node:fs";
import { resolve } from "node:path";

/**
 * Calls `onChange` with the files that changed, once editors have finished writing (they often
 * write a file in several steps: truncate, write, rename). Folders are watched recursively. Real
 * time, not the mock's clock: this is about files on disk.
 */
export function watchFiles(paths: readonly string[], onChange: (changed: string[]) => Promise<void>, settleMs = 150): () => void {
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const watchers: FSWatcher[] = [];
  for (const path of paths) {
    const full = resolve(path);
    const folder = statSync(full, { throwIfNoEntry: false })?.isDirectory() ?? false;
    watchers.push(
      watch(full, { recursive: folder, persistent: false }, (_event, name) => {
        changed.add(folder && name ? `${path.replace(/\/+$/, "")}/${name}` : path);
        clearTimeout(timer);
        timer = setTimeout(() => {
          const files = [...changed].sort();
          changed.clear();
          // One reload at a time, in order.
          running = running.then(() => onChange(files));
        }, settleMs);
      }),
    );
  }
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
