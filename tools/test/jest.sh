#!/bin/sh
# `npm test`: the unit and CDK files share long-lived workers; the integration and property
# files each get a fresh worker process (`--workerIdleMemoryLimit=1MB` replaces a worker after
# every file), because they start servers, pollers and DynamoDB Locals, and freeze processes,
# and what one leaves behind must not slow or stall the next. Arguments go to both runs (a path
# selects files of one kind; the other run then finds none and passes); with --selectProjects
# the caller chooses, and one run serves.
# A young generation of 64 MB (V8's default is 16): a test file loads thousands of modules and
# throws them away, and the larger space collects them in fewer scavenges; the workers inherit
# it (the unit project alone: about a tenth less CPU).
jest="node --max-semi-space-size=64 --experimental-vm-modules node_modules/jest/bin/jest.js"
case " $* " in
  *" --selectProjects "*)
    case " $* " in
      *" integration"*) exec $jest --workerIdleMemoryLimit=1MB "$@" ;;
      *) exec $jest "$@" ;;
    esac ;;
esac
$jest --selectProjects unit cdk --passWithNoTests "$@"
quick=$?
$jest --selectProjects integration --workerIdleMemoryLimit=1MB --passWithNoTests "$@"
integration=$?
[ "$quick" -eq 0 ] && [ "$integration" -eq 0 ]
