// `require("terrain-client/hyperscape")` without package exports (and
// `require("./client-sdk/node/hyperscape")` from a clone of the repository): the
// Hyperscape adapter, built into dist/ by `npm run build`.
module.exports = require("./dist/src/hyperscape");
