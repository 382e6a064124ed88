#!/bin/sh
# crash-load-luks.sh - crash-load.sh on a LUKS2 volume with cryptsetup's
# default cipher (aes-xts-plain64, so every sector is an xts-aes-gpu
# request): the helper SIGKILLed and restarted under 4 writers/readers.
# Fewer kills than the aes-ctr-plain64 run: the recovery paths are the
# same code, this proves they hold for the xts requests.  Only with the
# helper (crash-load.sh says so).
CRASH_VOLUME=luks CRASH_KILLS=${CRASH_KILLS_LUKS:-10} \
	exec sh "$(dirname "$0")/crash-load.sh"
