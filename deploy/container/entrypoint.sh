#!/bin/sh
# The container image's entrypoint (/usr/local/bin/tributary-entrypoint), in
# the image tools/image.sh builds and in the Dockerfile's:
#
#   IMAGE master ARGS...   runs tributary-master ARGS...
#   IMAGE worker ARGS...   runs tributary-worker ARGS...
#   IMAGE                  runs `tributary --help` (the image's default command)
#   IMAGE PROGRAM ARGS...  runs PROGRAM as given (tributary devices ..., sh)
#
# It execs, so the daemon is the container's process 1 and gets the runtime's
# SIGTERM itself (the daemons drain on it: docs/operations.md).
set -e
case "${1:-}" in
  master | worker)
    program="tributary-$1"
    shift
    exec "/usr/bin/$program" "$@"
    ;;
  "")
    exec /usr/bin/tributary --help
    ;;
  *)
    exec "$@"
    ;;
esac
