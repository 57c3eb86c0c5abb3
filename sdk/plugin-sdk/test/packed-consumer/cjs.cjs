// A CommonJS plugin.
const sdk = require('@rolelink/plugin-sdk');
require('./checks.cjs')(sdk).then(
  () => console.log('cjs ok'),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
