import { Sender } from '../../index.js';
new Sender({ url: 'http://localhost/' }).on('sendFailed', (event) => console.log(event));
