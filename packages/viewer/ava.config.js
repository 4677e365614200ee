export default {
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  files: ['test/**/*.test.ts'],
  timeout: '2m',
  workerThreads: false,
};
