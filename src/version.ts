// The service's version, package.json's (test/monitoring.test.ts holds them equal): the
// compiled service does not read package.json, which is not beside dist/ in every layout.
export const VERSION = '0.1.0';
