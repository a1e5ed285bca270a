#!/bin/sh
# `npm test`: two runs, the unit and CDK files first, then the integration and property files.
# In both, a worker process serves file after file, replaced only once it holds more than 700 MB
# after one (jest.config.js): a new process per file cost an integration file about 1.2 s of
# CPU more (node's start, jest's runtime, every module compiled anew). An integration file
# starts servers, pollers and DynamoDB Locals, so it must stop them before the next file runs
# in its process: test/support/dynamodb-environment.cjs fails a file that leaves a server or
# a child process running. Arguments go to both runs (a path selects files of one kind; the
# other run then finds none and passes); with --selectProjects the caller chooses, and one run
# serves.
# A young generation of 64 MB (V8's default is 16): a test file loads thousands of modules and
# throws them away, and the larger space collects them in fewer scavenges; the workers inherit
# it (the unit project alone: about a tenth less CPU).
jest="node --max-semi-space-size=64 --experimental-vm-modules node_modules/jest/bin/jest.js"
case " $* " in
  *" --selectProjects "*) exec $jest "$@" ;;
esac
$jest --selectProjects unit cdk --passWithNoTests "$@"
quick=$?
$jest --selectProjects integration --passWithNoTests "$@"
integration=$?
[ "$quick" -eq 0 ] && [ "$integration" -eq 0 ]
