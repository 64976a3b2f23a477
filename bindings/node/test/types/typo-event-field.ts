import { Gate } from '../../index.js';
new Gate().on('recovery_started', (event) => console.log(event.pauze));
