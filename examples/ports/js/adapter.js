#!/usr/bin/env node
// The RW1 conformance adapter of the JavaScript port: one JSON request per
// line on standard input, one JSON response per line on standard output, in
// order (contract versions 1 and 2; see protocol.js). No request ends the
// process: a request that cannot be carried out answers ok: false.

import { serve } from "./protocol.js";

serve();
