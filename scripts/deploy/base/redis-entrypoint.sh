#!/bin/bash
# What the official redis image's entrypoint does for `redis-server …`: own /data, drop to the redis
# user, and turn protected mode off unless the command sets it (the container's network is the fence).
set -euo pipefail
if [ "${1:-}" = redis-server ]; then
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
  fi
  case " $* " in
  *" --protected-mode "*) ;;
  *) set -- "$@" --protected-mode no ;;
  esac
fi
exec "$@"
