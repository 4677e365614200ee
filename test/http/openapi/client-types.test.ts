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

/** The dashboard's files that name the type `name`, with their semantic diagnostics. */
const readersOf = (program: ts.Program, name: string) =>
  program
    .getSourceFiles()
    .filter((f) => f.fileName.startsWith(path.join(WEB, 'src')) && new RegExp(`\\b${name}\\b`).test(f.text))
    .map((f) => ({ file: f.fileName, faults: described(program.getSemanticDiagnostics(f)) }));

// The whole dashboard is type-checked by its build (`tsc --noEmit && vite build`), which npm test
// runs whenever web/ changed; here only the files that read monitors are checked, on the table's
// types and on the same types with `status` of a monitor renamed, as if the server's Monitor
// codec called it `state`. The second program reuses the first's parsed files.
test('a field of an answer renamed on the server fails tsc in web/ where the dashboard reads it', (t) => {
  const generated = generatedClientTypes();
  const program = webProgram(generated);
  const readers = readersOf(program, 'Monitor');
  t.true(readers.length > 1, 'the pages that show monitors name the type');
  t.deepEqual(
    readers.flatMap((r) => r.faults),
    [],
    'the dashboard type-checks against the table',
  );
  // The first `status:` of the Monitor type is the monitor's own (its first member's fields).
  const at = generated.indexOf('\nexport type Monitor = ');
  const field = generated.indexOf('\n  status:', at);
  const renamed = `${generated.slice(0, field)}\n  state:${generated.slice(field + '\n  status:'.length)}`;
  t.not(renamed, generated);
  const faults = readersOf(webProgram(renamed, program), 'Monitor').flatMap((r) => r.faults);
  t.true(faults.length > 0, 'tsc fails');
  t.true(
    faults.some((f) => /Property 'status' does not exist on type/.test(f)),
    faults.join('\n'),
  );
});
