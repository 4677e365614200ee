import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ConfigFile, fileFaults } from '../../domain/config-file.ts';
import { describeErrors } from '../../domain/decode-errors.ts';

/** A configuration file's text → the file it describes, or every fault with its place:
 *  `watchlog.yaml:14:7 projects[0].monitors[2].interval_seconds: must be …`. YAML (JSON is YAML
 *  too, so one parser places both). `${NAME}` is read from the environment; the paths of the
 *  values it filled are returned, so that plan and apply show them as `(sensitive)`. */

export type Path = Array<string | number>;

export interface Parsed {
  readonly file: ConfigFile;
  /** Paths (as `pathText` writes them) whose value came from the environment. */
  readonly fromEnv: ReadonlySet<string>;
}

export class ConfigFileError extends Error {
  constructor(readonly faults: readonly string[]) {
    super(faults.join('\n'));
  }
}

/** `projects[0].monitors[2].interval_seconds`. */
export const pathText = (path: Path): string =>
  path.reduce<string>(
    (text, key) =>
      typeof key === 'number'
        ? `${text}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(key)
          ? text === ''
            ? key
            : `${text}.${key}`
          : `${text}[${JSON.stringify(key)}]`,
    '',
  );

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HAS_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

/** Where `path` is in the document: the key's position for a key that should not be there, the
 *  value's otherwise; the nearest enclosing node for a key that is missing. */
const offsetOf = (doc: Document, path: Path, atKey: boolean): number => {
  let node: unknown = doc.contents;
  let offset = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const [i, key] of path.entries()) {
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) return offset;
      const keyNode = pair.key as Node;
      if (last && atKey) return keyNode.range?.[0] ?? offset;
      node = pair.value;
      offset = (pair.value as Node | null)?.range?.[0] ?? keyNode.range?.[0] ?? offset;
    } else if (isSeq(node)) {
      const item = node.items[Number(key)] as Node | undefined;
      if (!item) return offset;
      node = item;
      offset = item.range?.[0] ?? offset;
    } else return offset;
  }
  return offset;
};

/** Fills `${NAME}` references from `env`, recording where; an unset one is a fault. */
const substitute = (
  value: unknown,
  path: Path,
  env: NodeJS.ProcessEnv,
  found: { fromEnv: Set<string>; missing: Array<{ path: Path; name: string }> },
): unknown => {
  if (typeof value === 'string') {
    if (!HAS_REFERENCE.test(value)) return value;
    found.fromEnv.add(pathText(path));
    return value.replace(REFERENCE, (_all, name: string) => {
      const given = env[name];
      if (given === undefined || given === '') {
        found.missing.push({ path, name });
        return '';
      }
      return given;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, [...path, i], env, found));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, [...path, k], env, found)]));
  return value;
};

/** io-ts's dotted paths back into keys and indexes. */
const splitPath = (dotted: string): Path =>
  dotted === '(root)' ? [] : dotted.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));

export const parseConfig = (text: string, fileName: string, env: NodeJS.ProcessEnv = process.env): Parsed => {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const place = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${fileName}:${line}:${col}`;
  };
  // After the first syntax error the rest of a YAML stream is noise.
  const [syntax] = doc.errors;
  if (syntax !== undefined) throw new ConfigFileError([`${place(syntax.pos[0])} ${syntax.message.split('\n')[0]}`]);
  const found = { fromEnv: new Set<string>(), missing: [] as Array<{ path: Path; name: string }> };
  const value = substitute(doc.toJS(), [], env, found);
  if (found.missing.length > 0)
    throw new ConfigFileError(
      found.missing.map(
        (m) =>
          `${place(offsetOf(doc, m.path, false))} ${pathText(m.path)}: \${${m.name}} is not set in the environment`,
      ),
    );
  const decoded = ConfigFile.validate(value, [{ key: '', type: ConfigFile, actual: value }]);
  if (decoded._tag === 'Left')
    throw new ConfigFileError(
      describeErrors(decoded.left, '(the file)').map(({ path, message }) => {
        const keys = splitPath(path);
        const where = place(offsetOf(doc, keys, message.startsWith('is not a known')));
        return `${where} ${pathText(keys) || '(the file)'}: ${message}`;
      }),
    );
  const faults = fileFaults(decoded.right as ConfigFile);
  if (faults.length > 0)
    throw new ConfigFileError(
      faults.map((f) => `${place(offsetOf(doc, f.path, false))} ${pathText(f.path)}: ${f.message}`),
    );
  return { file: decoded.right as ConfigFile, fromEnv: found.fromEnv };
};
