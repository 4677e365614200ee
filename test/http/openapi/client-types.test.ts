import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import ts from 'typescript';
import { GENERATED, generatedClientTypes } from '../../../scripts/api-types.ts';

/** The dashboard's client types come from the operation table: the committed file is what the
 *  table gives (`npm run api-types` writes it), and a field the server renames fails `tsc` in
 *  web/ at the places that read it. */

const WEB = fileURLToPath(new URL('../../../web/', import.meta.url));

test('web/src/api/operations.gen.ts is what the operation table gives: run npm run api-types when this fails', (t) => {
  t.is(readFileSync(GENERATED, 'utf8'), generatedClientTypes());
});

/** The dashboard type-checked as `tsc` in web/ does, with the generated file's text replaced. */
const webDiagnostics = (generated: string): string[] => {
  const configPath = path.join(WEB, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, WEB);
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === GENERATED ? generated : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language) =>
    path.resolve(file) === GENERATED ? ts.createSourceFile(file, generated, language) : getSourceFile(file, language);
  const program = ts.createProgram(parsed.fileNames, parsed.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? path.relative(WEB, d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
};

test('a field of an answer renamed on the server fails tsc in web/ where the dashboard reads it', (t) => {
  const generated = generatedClientTypes();
  t.deepEqual(webDiagnostics(generated), [], 'the dashboard type-checks against the table');
  // `status` of a monitor, as if the server's Monitor codec called it `state`.
  const monitor = /export type Monitor = \{[^}]*\n\};/.exec(generated)![0];
  const renamed = generated.replace(monitor, monitor.replace('\n  status:', '\n  state:'));
  t.not(renamed, generated);
  const faults = webDiagnostics(renamed);
  t.true(faults.length > 0, 'tsc fails');
  t.true(
    faults.some((f) => /Property 'status' does not exist on type/.test(f)),
    faults.join('\n'),
  );
});
