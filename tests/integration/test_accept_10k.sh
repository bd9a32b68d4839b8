#!/bin/bash
# 10,000 connections, one request each, one at a time: observer = refserver = driver, exactly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/accept_scenario.sh"
accept_scenario 10000 1
