#!/bin/sh
# The default user from the environment, logs to the console, then the broker as the rabbitmq
# user in the foreground (the Debian wrapper would send its output to files).
set -eu
if [ "${1:-}" != rabbitmq-server ]; then exec "$@"; fi
cat >/etc/rabbitmq/rabbitmq.conf <<CONF
default_user = ${RABBITMQ_DEFAULT_USER:-guest}
default_pass = ${RABBITMQ_DEFAULT_PASS:-guest}
loopback_users.guest = false
log.console = true
log.console.level = warning
log.file = false
CONF
chown -R rabbitmq:rabbitmq /var/lib/rabbitmq
cd /var/lib/rabbitmq
export HOME=/var/lib/rabbitmq
exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups /usr/lib/rabbitmq/bin/rabbitmq-server
