#!/usr/bin/env bash
# Installs what the network testbed needs (`parley testbed`, `make testbed`,
# and its short run in `make test`): iproute2's ip and iptables, from
# Debian's packages, when this runs as root and they are missing. Without
# root nothing is installed and the testbed's test skips, saying why.
set -euo pipefail
need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-testbed: not root, nothing installed; the testbed's test will skip (missing: ${need[*]})"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q "${need[@]}" >/dev/null 2>&1; then
	apt-get update -q >/dev/null
	apt-get install -y -q "${need[@]}" >/dev/null
fi
echo "install-testbed: installed ${need[*]}"
