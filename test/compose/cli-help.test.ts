import test from 'ava';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { COMMAND_NAMES, commandHelp, generalHelp } from '../../src/cli/help.ts';

test('the general help lists every command and every variable the configuration reads', (t) => {
  const help = generalHelp();
  for (const name of COMMAND_NAMES) t.regex(help, new RegExp(`^  ${name} `, 'm'), name);
  for (const name of CONFIG_VARIABLES) t.true(help.includes(name), name);
  t.true(
    help.split('\n').every((line) => line.length <= 100),
    'fits a terminal',
  );
});

test('each command has help of its own; an unknown one has none', (t) => {
  for (const name of ['start', 'api', 'worker', 'rebuild', 'demo'])
    t.regex(commandHelp(name)!, new RegExp(`^watchlog ${name} — [\\s\\S]*Usage: watchlog ${name}\\n`), name);
  t.regex(commandHelp('admin')!, /Usage: watchlog admin reset-password EMAIL/);
  t.is(commandHelp('launch'), null);
});
