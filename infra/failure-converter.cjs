// Loaded by path (DataConverter.failureConverterPath): by the client and the worker with require(),
// and bundled into the workflow sandbox. A failure's message and stack trace go into its encoded
// attributes, a payload, so the AES-GCM payload codec encrypts them like every other payload: an
// error message can quote what a person sent.
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
