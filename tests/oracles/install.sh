#!/usr/bin/env bash
# Installs the oracles the differential tests compare trumansh with when this machine lacks
# them: GNU awk (`awk` on Debian is mawk; the transcripts' oracle for awk is gawk 5.2), tree
# 2.1, file 5.44, xxd, hexdump (bsdextrautils), jq 1.6, zip and unzip.
# Debian's packages, through apt-get (as root). Run by .ci/run before the tests.
set -euo pipefail
missing=()
command -v gawk >/dev/null || missing+=(gawk)
command -v tree >/dev/null || missing+=(tree)
command -v file >/dev/null || missing+=(file)
command -v xxd >/dev/null || missing+=(xxd)
command -v hexdump >/dev/null || missing+=(bsdextrautils)
command -v jq >/dev/null || missing+=(jq)
command -v zip >/dev/null || missing+=(zip)
command -v unzip >/dev/null || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing the test oracles: ${missing[*]}" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
