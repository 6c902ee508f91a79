#!/usr/bin/env bash
# Installs the Debian packages cdyn needs when any is missing (as root, or through sudo).
# Usage: scripts/deps.sh [extra packages...]
set -euo pipefail

# libc6-dev is only a Recommends of gcc, which --no-install-recommends skips: without it a minimal
# Debian has no C headers. binutils (objdump, the install test's SONAME check) comes with gcc, but
# is listed since the tests call it directly.
packages=(cmake make gcc libc6-dev binutils pkg-config
  libsuitesparse-dev liblapacke-dev libopenblas-dev libcmocka-dev libxml2-dev libfclib-dev libhdf5-dev
  "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cdyn: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "cdyn: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
