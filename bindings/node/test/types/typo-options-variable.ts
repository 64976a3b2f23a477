import { Gate } from '../../index.js';
const options = { failuresToEnterRecovry: 5, recoverySeconds: 30 };
new Gate(options);
