#!/bin/sh
# Installs Debian's chromium for the browser test of the principal's pages
# (node/web). A quick no-op when it is already installed; needs root (or
# sudo) and apt-get otherwise.
set -eu

BIN=/usr/lib/chromium/chromium

if [ -x "$BIN" ]; then
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo -n"
	else
		echo "install-chromium.sh: $BIN is missing and installing it needs root" >&2
		exit 1
	fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium.sh: $BIN is missing and apt-get is not available; install Debian's chromium package" >&2
	exit 1
fi

echo "install-chromium.sh: installing Debian's chromium (about 150 MB)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null

if [ ! -x "$BIN" ]; then
	echo "install-chromium.sh: chromium installed but $BIN is missing" >&2
	exit 1
fi
