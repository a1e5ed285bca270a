#!/bin/sh
# `npm test`: one jest run over every project, so the two workers share all the files and end
# together (tools/test/sequencer.cjs orders them, slowest first). A worker process serves file
# after file, replaced only once it holds more than 700 MB after one (jest.config.js): a new
# process per file cost an integration file about 1.2 s of CPU more (node's start, jest's
# runtime, every module compiled anew). An integration file starts servers, pollers and
# DynamoDB Locals, so it must stop them before the next file runs in its process:
# test/support/dynamodb-environment.cjs fails a file that leaves a server or a child process
# running. Arguments go to jest (`--selectProjects unit cdk` is `test:quick`).
# A young generation of 64 MB (V8's default is 16): a test file loads thousands of modules and
# throws them away, and the larger space collects them in fewer scavenges; the workers inherit
# it (the unit project alone: about a tenth less CPU).
exec node --max-semi-space-size=64 --experimental-vm-modules node_modules/jest/bin/jest.js "$@"
