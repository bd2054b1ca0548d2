import { accessSync, constants, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { CliUsageError } from './cli.errors';

/** A path as the commands show it: relative to the current folder, so no output carries an absolute path. */
export function shownPath(path: string): string {
  return relative(process.cwd(), resolve(path)) || '.';
}

/**
 * Checks, before anything is asked of an Engine, that the `--html` page can be written: makes its folder, and refuses
 * a path that is a folder or in a folder that cannot be written (a usage error, exit 2). Returns the absolute target,
 * or null without `--html`.
 */
export function prepareHtml(path: string | undefined): string | null {
  if (path === undefined) return null;
  const target = resolve(path);
  const refuse = (why: string) =>
    new CliUsageError(
      `--html ${shownPath(target)} cannot be written: ${why}. Give a file path in a folder you can write.`,
    );
  try {
    mkdirSync(dirname(target), { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file stands where its folder should be'
        : code === 'EACCES' || code === 'EPERM'
          ? 'no permission to make its folder'
          : (code ?? String(error));
    throw refuse(`its folder cannot be made (${why})`);
  }
  if (isFolder(target)) throw refuse('it is a folder');
  try {
    accessSync(dirname(target), constants.W_OK);
  } catch {
    throw refuse('its folder is not writable');
  }
  return target;
}

/** Writes the page prepared by `prepareHtml` (to a temporary file renamed over the target); nothing without one. */
export function writeHtml(target: string | null, html: string): void {
  if (target === null) return;
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, html);
  renameSync(temporary, target);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
