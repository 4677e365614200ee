import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import ts from 'typescript';
import { generatedClientTypes } from '../../../scripts/api-types.ts';
import { repoPath } from '../../helpers/root.ts';

/** The dashboard's client types come from the operation table: the committed file is what the
 *  table gives (`npm run api-types` writes it), and a field the server renames fails `tsc` in
 *  web/ at the places that read it. */

const WEB = repoPath('web');
const GENERATED = path.join(WEB, 'src/api/operations.gen.ts');

test('web/src/api/operations.gen.ts is what the operation table gives: run npm run api-types when this fails', (t) => {
  t.is(readFileSync(GENERATED, 'utf8'), generatedClientTypes());
});

/** The dashboard as `tsc` in web/ builds it, with the generated file's text replaced. */
const webProgram = (generated: string, oldProgram?: ts.Program): ts.Program => {
  const configPath = path.join(WEB, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, WEB);
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === GENERATED ? generated : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language) =>
    path.resolve(file) === GENERATED ? ts.createSourceFile(file, generated, language) : getSourceFile(file, language);
  return ts.createProgram(parsed.fileNames, parsed.options, host, oldProgram);
};

const described = (diagnostics: readonly ts.Diagnostic[]): string[] =>
  diagnostics.map(
    (d) =>
      `${d.file ? path.relative(WEB, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
  );

test('a field of an answer renamed on the server fails tsc in web/ where the dashboard reads it', (t) => {
  const generated = generatedClientTypes();
  const program = webProgram(generated);
  t.deepEqual(described(ts.getPreEmitDiagnostics(program)), [], 'the dashboard type-checks against the table');
  // `status` of a monitor, as if the server's Monitor codec called it `state`. Only the files that
  // name the type are checked again (the others' answer cannot change), on the first program's
  // parsed files.
  const monitor = /export type Monitor = \{[^}]*\n\};/.exec(generated)![0];
  const renamed = generated.replace(monitor, monitor.replace('\n  status:', '\n  state:'));
  t.not(renamed, generated);
  const again = webProgram(renamed, program);
  const readers = again
    .getSourceFiles()
    .filter((f) => f.fileName.startsWith(path.join(WEB, 'src')) && /\bMonitor\b/.test(f.text));
  t.true(readers.length > 1, 'the pages that show monitors name the type');
  const faults = described(readers.flatMap((f) => again.getSemanticDiagnostics(f)));
  t.true(faults.length > 0, 'tsc fails');
  t.true(
    faults.some((f) => /Property 'status' does not exist on type/.test(f)),
    faults.join('\n'),
  );
});
