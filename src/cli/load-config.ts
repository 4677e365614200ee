import { ConfigError, loadConfig, type Config } from '../config.ts';

/** The configuration, or the exit code of a command that cannot run without it (2: the message
 *  names each faulty variable, on stderr). */
export const loadConfigOrExit = (env: NodeJS.ProcessEnv = process.env): Config | number => {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`watchlog: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
};
