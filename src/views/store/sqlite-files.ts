import { readdirSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/** The embedded read models' files in a data dir.
 *
 *  `views.db` is the current generation of the read models: a symbolic link to `views-<n>.db` once
 *  a rebuild has made one (a plain file before). A rebuild fills the next generation beside it and
 *  publishes it by replacing the link in one rename. SQLite names a database's WAL after the
 *  link's target, so a process still reading the old generation and one on the new never share a
 *  WAL; each process moves to the new generation when it sees the link change.
 *
 *  `state.db` holds what the log cannot rebuild (what reactors have done and how far they are,
 *  login counters): it is never replaced. */
export const VIEWS_FILE = 'views.db';
export const STATE_FILE = 'state.db';

const GENERATION = /^views-(\d+)\.db$/;
const SQLITE_SUFFIXES = ['', '-wal', '-shm', '-journal'];

export const viewsPath = (dir: string): string => path.join(dir, VIEWS_FILE);
export const statePath = (dir: string): string => path.join(dir, STATE_FILE);

/** The file `views.db` is now (which generation); null when there is none yet. */
export const currentViews = (dir: string): string | null => {
  try {
    return realpathSync(viewsPath(dir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const removeDatabase = (file: string): void => {
  for (const suffix of SQLITE_SUFFIXES) rmSync(`${file}${suffix}`, { force: true });
};

/** A fresh file for the next generation. Generations that are not current are what interrupted
 *  rebuilds left: they are deleted (one rebuild runs at a time: the caller holds the rebuild
 *  lease). */
export const nextViews = (dir: string): string => {
  const current = currentViews(dir);
  let highest = 0;
  for (const name of readdirSync(dir)) {
    const match = GENERATION.exec(name);
    if (!match) continue;
    highest = Math.max(highest, Number(match[1]));
    const file = path.join(dir, name);
    if (file !== current) removeDatabase(file);
  }
  const file = path.join(dir, `views-${highest + 1}.db`);
  removeDatabase(file);
  return file;
};

/** Makes `file` (in `dir`) the current generation, and deletes the previous one's names: the
 *  processes still on it keep their open handles until they move, and the disk space is freed
 *  when the last one closes. */
export const publishViews = (dir: string, file: string): void => {
  const previous = currentViews(dir);
  const link = path.join(dir, `${VIEWS_FILE}.next`);
  rmSync(link, { force: true });
  symlinkSync(path.basename(file), link);
  renameSync(link, viewsPath(dir));
  if (previous === null || previous === file) return;
  // A plain views.db was replaced by the rename itself; its WAL and shared memory remain.
  if (path.basename(previous) === VIEWS_FILE)
    for (const suffix of SQLITE_SUFFIXES.slice(1)) rmSync(`${previous}${suffix}`, { force: true });
  else removeDatabase(previous);
};
