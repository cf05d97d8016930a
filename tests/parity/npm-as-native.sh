#!/bin/sh
# The npm CLI standing in for the native binary (POSCHECK_NATIVE_BIN=tests/parity/npm-as-native.sh):
# npm against npm must be equal, which shows that the scenario is deterministic.
exec node "$(dirname "$0")/../../pkg/bin/poscheck.js" "$@"
