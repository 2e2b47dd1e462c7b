// jest, as the app's own test runner, with its default configuration: no babel, no transform.
const { cases } = require('./cases.js');

for (const [name, run] of cases) test(name, run);
