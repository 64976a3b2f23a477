import { retry } from '../../index.js';
const backoff = { maxAttemps: 4, initialDelaySeconds: 0.2 };
retry(() => 1, backoff);
