// The worker files, several at once, against the one simulator the global set-up starts.
module.exports = {
  testMatch: ['**/*.parallel.js'],
  globalSetup: './global-setup.js',
  globalTeardown: './global-teardown.js',
  maxWorkers: 3,
};
