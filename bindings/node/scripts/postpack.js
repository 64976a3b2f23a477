#!/usr/bin/env node
'use strict';
// npm pack's postpack script: removes what scripts/prepack.js copied in.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
for (const dir of ['vendor', 'prebuilds']) fs.rmSync(path.join(root, dir), { recursive: true, force: true });
