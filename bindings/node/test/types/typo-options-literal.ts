import { Gate } from '../../index.js';
new Gate({ failuresToEnterRecovry: 5 });
