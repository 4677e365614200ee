import { isatty } from 'node:tty';

/** Agenda makes a new `debug` logger at each step of each job (`log.extend(...)`), and `debug`
 *  asks the system whether stderr is a terminal for each new logger unless DEBUG_COLORS answers:
 *  ~5 % of the server's CPU with 5,000 monitors. The same answer is settled once here, before any
 *  module loads `debug` (main.ts imports this first). */
process.env.DEBUG_COLORS ??= isatty(2) ? 'true' : 'false';
