#!/bin/bash
# 2,000 connections, one request each, 8 in parallel: observer = refserver = driver, exactly.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/accept_scenario.sh"
accept_scenario 2000 8
