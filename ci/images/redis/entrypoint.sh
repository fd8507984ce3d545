#!/bin/sh
# The official image is built with protected mode off (it has no password and listens on every
# address); Debian's is not, so the flag is given here. Compose's `command` arguments follow it.
set -eu
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" != redis-server ]; then exec "$@"; fi
shift
chown redis:redis /data
exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
