import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What Biome does not check: code lines within 120 characters, and files a person can read in
 *  one go (at most 450 lines; split a longer one by what it does). Generated files are exempt
 *  from the length of the file. `npm run lint` runs it; exit 1 on a finding. */

export const MAX_LINE = 120;
export const MAX_LINES = 450;
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs|css)$/;
const GENERATED = /\.gen\.ts$/;

export interface Finding {
  file: string;
  message: string;
}

export const findingsOf = (file: string, text: string): Finding[] => {
  const found: Finding[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    if (line.length > MAX_LINE)
      found.push({ file: `${file}:${i + 1}`, message: `is ${line.length} characters long (at most ${MAX_LINE})` });
  });
  if (lines.length > MAX_LINES && !GENERATED.test(file)) {
    found.push({ file, message: `has ${lines.length} lines (at most ${MAX_LINES}): split it by what it does` });
  }
  return found;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // Tracked files and new ones not ignored: what a commit would hold.
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\n')
    .filter((f) => CODE.test(f));
  const findings = files.flatMap((file) => {
    try {
      return findingsOf(file, readFileSync(new URL(file, `file://${root}`), 'utf8'));
    } catch {
      return []; // listed by git, deleted in the work tree
    }
  });
  for (const { file, message } of findings) process.stderr.write(`${file} ${message}\n`);
  if (findings.length > 0) {
    process.stderr.write(
      `${findings.length} findings (npm run format lays code out; long strings and files are split by hand)\n`,
    );
    process.exit(1);
  }
}
