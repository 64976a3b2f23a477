import { Client } from '../../index.js';
const request = { url: 'http://localhost/', signl: AbortSignal.timeout(1000) };
new Client().request(request);
