#!/usr/bin/env bash
# Installs the oracles the differential tests compare trumansh with when this machine lacks
# them: GNU awk (`awk` on Debian is mawk; the transcripts' oracle for awk is gawk 5.2).
# Debian's packages, through apt-get (as root). Run by .ci/run before the tests.
set -euo pipefail
missing=()
command -v gawk >/dev/null || missing+=(gawk)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing the test oracles: ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
