// The password strength thread (see password-policy.ts): zxcvbn's estimate takes from a few to ~200 ms of
// CPU per password, which must not stall the gateway's event loop. Plain JavaScript so it loads the same
// under tsx, vitest and plain node.
import { parentPort, workerData } from 'node:worker_threads';
import core from '@zxcvbn-ts/core';
import common from '@zxcvbn-ts/language-common';

const estimator = new core.ZxcvbnFactory({
  dictionary: { ...common.dictionary, site: workerData.siteWords },
  graphs: common.adjacencyGraphs,
});

parentPort.on('message', ({ seq, password, userInputs }) => {
  try {
    parentPort.postMessage({ seq, score: estimator.check(password, userInputs).score });
  } catch (err) {
    parentPort.postMessage({ seq, error: String(err instanceof Error ? err.message : err) });
  }
});
