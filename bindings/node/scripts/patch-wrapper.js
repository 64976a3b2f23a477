#!/usr/bin/env node
'use strict';
// Makes SWIG 4.1's V8 wrapper safe to load in several isolates (worker
// threads). SWIG keeps each class template in a process-wide global that the
// init of every isolate overwrites, so objects made in one thread used a
// template of another (dead) isolate: a crash. Here each thread (Node runs
// one isolate per thread) gets its own templates, and module init is
// serialised. Every pattern must match, so a SWIG upgrade fails loudly.
const fs = require('node:fs');

const file = process.argv[2];
let text = fs.readFileSync(file, 'utf8');

function replace(pattern, replacement, what) {
  const before = text;
  text = text.replace(pattern, replacement);
  if (text === before) {
    console.error(`patch-wrapper: no match for ${what}; SWIG's output changed`);
    process.exit(1);
  }
}

const helpers = `
/* respite: per-thread class templates (see bindings/node/scripts/patch-wrapper.js). */
#include <mutex>
struct respite_node_binding { swig_type_info *type; SWIGV8_ClientData *data; };
static thread_local respite_node_binding respite_node_bindings[128];
static thread_local int respite_node_binding_count;

static void respite_node_bind_client_data(swig_type_info *type, SWIGV8_ClientData *data)
{
  if (type->clientdata == 0)
    type->clientdata = data; /* only a marker now: "this type has a class" */
  for (int i = 0; i < respite_node_binding_count; i++) {
    if (respite_node_bindings[i].type == type) {
      respite_node_bindings[i].data = data;
      return;
    }
  }
  if (respite_node_binding_count < 128)
    respite_node_bindings[respite_node_binding_count++] = respite_node_binding{type, data};
}

static SWIGV8_ClientData *respite_node_client_data(swig_type_info *type)
{
  for (int i = 0; i < respite_node_binding_count; i++)
    if (respite_node_bindings[i].type == type)
      return respite_node_bindings[i].data;
  return 0;
}

static thread_local v8::Persistent<v8::FunctionTemplate> SWIGV8_SWIGTYPE_Proxy_class_templ;
`;
replace('SWIGRUNTIME v8::Persistent<v8::FunctionTemplate> SWIGV8_SWIGTYPE_Proxy_class_templ;\n', helpers, 'the proxy class template');
replace(/^SWIGV8_ClientData (_exports_\w+_clientData);$/gm, 'static thread_local SWIGV8_ClientData $1;', 'class client data');
replace(
  /if \(SWIGTYPE_p_(\w+)->clientdata == 0\) \{\n\s*SWIGTYPE_p_\1->clientdata = &(_exports_\w+_clientData);\n\}/g,
  'respite_node_bind_client_data(SWIGTYPE_p_$1, &$2);',
  'client data registration',
);
replace(/\(SWIGV8_ClientData\*\)\s?info->clientdata/g, 'respite_node_client_data(info)', 'client data reads');
replace('if(info->clientdata != 0) {', 'if(respite_node_client_data(info) != 0) {', 'client data test');
replace(
  /(void SWIGV8_INIT \(SWIGV8_OBJECT exports_obj, SWIGV8_VALUE \/\*module\*\/, v8::Local<v8::Context> context, void\*\)\n#endif\n\{\n)/,
  '$1  static std::mutex respite_node_init_lock;\n  std::lock_guard<std::mutex> respite_node_init_guard(respite_node_init_lock);\n',
  'module init',
);
// Registration by constructor (NODE_MODULE_CONTEXT_AWARE) runs only at the
// first dlopen; a worker loading the addon at the same moment then finds no
// module ("Module did not self-register"). The exported initializer symbol
// is looked up on every load.
replace(
  /NODE_MODULE_CONTEXT_AWARE\((\w+), (\w+)\)/,
  'NODE_MODULE_INIT() { $2(exports, module, context, nullptr); }',
  'module registration',
);
if (/info->clientdata/.test(text.replace(/type->clientdata/g, ''))) {
  console.error('patch-wrapper: a read of info->clientdata is left');
  process.exit(1);
}
fs.writeFileSync(file, text);
