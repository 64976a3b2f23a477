import { Settings } from '../../index.js';
new Settings('gate', { probs: 2 });
