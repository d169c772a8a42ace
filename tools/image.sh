#!/usr/bin/env bash
# Builds Tributary's container image without a container engine
# (deploy/README.md, "Container image"): debootstrap a Debian bookworm root
# (minbase), install tools/package.sh's .deb into it with apt, so that the
# runtime libraries are exactly the package's Depends (plus its Recommends,
# libopenblas0-pthread), add the entrypoint (deploy/container/entrypoint.sh),
# pack the root as one layer with umoci and export it with skopeo.
#
#   tools/image.sh [--bin-dir DIR | --deb FILE] [--out DIR] [--mirror URL]
#                  [--security-mirror URL]
#
#   --bin-dir DIR  package tributary, tributary-master and tributary-worker
#                  from DIR (tools/package.sh --bin-dir; default: build them)
#   --deb FILE     install this .deb instead of packaging one
#   --out DIR      where the image goes (default: dist/)
#   --mirror URL   Debian archive (default: http://deb.debian.org/debian)
#   --security-mirror URL  (default: http://deb.debian.org/debian-security)
#
# Writes, and prints on stdout one per line:
#   OUT/tributary-image                  an OCI image layout, tag VERSION
#                                        (skopeo/umoci: oci:OUT/tributary-image:VERSION)
#   OUT/tributary_VERSION_image.tar      the same image as a docker-archive
#                                        named tributary:VERSION (`docker load -i`)
# The image runs as the package's `tributary` system user; its entrypoint
# takes `master ARGS` or `worker ARGS` (see entrypoint.sh). Needs root
# (debootstrap, chroot) and debootstrap, umoci and skopeo (tools/setup.sh
# --tests installs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin_dir="" deb="" out="dist"
mirror="http://deb.debian.org/debian"
security_mirror="http://deb.debian.org/debian-security"
usage() {
  echo "usage: tools/image.sh [--bin-dir DIR | --deb FILE] [--out DIR] [--mirror URL]" \
       "[--security-mirror URL]" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --deb) deb="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --mirror) mirror="$2"; shift 2 ;;
    --security-mirror) security_mirror="$2"; shift 2 ;;
    *) usage ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "image: needs root (debootstrap, chroot)" >&2; exit 1; }
for tool in debootstrap umoci skopeo; do
  command -v "$tool" >/dev/null || {
    echo "image: $tool not found (apt-get install debootstrap umoci skopeo)" >&2; exit 1; }
done

version=$(tr -d ' \n' < VERSION)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# Every file's time and the image's creation time: the commit's, so that two
# builds of one commit from the same archive state differ only where the
# archive's packages did.
epoch=$(git log -1 --format=%ct 2>/dev/null || date +%s)
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
log="$stage/log"
fail() {
  echo "image: $1; the last lines of its log:" >&2
  tail -n 30 "$log" >&2
  exit 1
}

if [[ -z "$deb" ]]; then
  package=(tools/package.sh --fast --out "$stage/deb")
  [[ -n "$bin_dir" ]] && package+=(--bin-dir "$bin_dir")
  deb=$("${package[@]}" | tail -n 1)
fi
[[ -f "$deb" ]] || { echo "image: no package at $deb" >&2; exit 1; }

echo "image: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase --components=main bookworm "$root" "$mirror" \
  >"$log" 2>&1 || fail "debootstrap failed"

# What the image leaves out, as Debian's slim images do: manuals, info pages,
# translations and documentation other than the copyright files.
cat > "$root/etc/dpkg/dpkg.cfg.d/01-tributary-image" <<'EOF'
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
EOF
# The release with its security and point updates: the package's Depends
# were computed on an up to date bookworm host.
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
EOF
cp "$deb" "$root/tmp/tributary.deb"
echo "image: installing $(basename "$deb") and its dependencies" >&2
chroot "$root" /bin/sh -c '
  set -e
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get upgrade -y -q
  apt-get install -y -q --no-install-recommends /tmp/tributary.deb libopenblas0-pthread
  apt-get clean
' >"$log" 2>&1 || fail "installing the package failed"
install -m 0755 deploy/container/entrypoint.sh "$root/usr/local/bin/tributary-entrypoint"
# Fails the build if a library is missing.
if chroot "$root" ldd /usr/bin/tributary /usr/bin/tributary-master \
     /usr/bin/tributary-worker | grep "not found" >&2; then
  echo "image: a shared library is missing from the image" >&2
  exit 1
fi
uid=$(chroot "$root" id -u tributary)
gid=$(chroot "$root" id -g tributary)

# What a container runtime provides itself, and what was only for building.
rm -rf "$root/tmp/"* "$root/var/lib/apt/lists/"* "$root/var/cache/apt/"* \
  "$root/var/cache/debconf/"*-old "$root/var/log/"* \
  "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
find "$root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -f "$root/etc/resolv.conf" "$root/etc/hostname"
: > "$root/etc/machine-id"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' \
  > "$root/etc/hosts"

echo "image: packing the layer" >&2
tar --create --file "$stage/layer.tar" --directory "$root" --numeric-owner \
  --sort=name --mtime="@$epoch" --clamp-mtime --xattrs \
  --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' .

layout="$out/tributary-image"
archive="$out/tributary_${version}_image.tar"
mkdir -p "$out"
rm -rf "$layout" "$archive"
image="$layout:$version"
{
  umoci init --layout "$layout"
  umoci new --image "$image"
  umoci raw add-layer --image "$image" --history.created "$created" \
    --history.created_by "tools/image.sh: Debian bookworm minbase + tributary_${version}_amd64.deb" \
    "$stage/layer.tar"
  umoci config --image "$image" --created "$created" --history.created "$created" \
    --author "Tributary developers" \
    --config.user "$uid:$gid" \
    --config.entrypoint /usr/local/bin/tributary-entrypoint \
    --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --config.workingdir / \
    --config.exposedports 2220/tcp --config.exposedports 2222/tcp \
    --config.stopsignal SIGTERM \
    --config.label "org.opencontainers.image.title=tributary" \
    --config.label "org.opencontainers.image.version=$version" \
    --config.label "org.opencontainers.image.revision=$commit" \
    --config.label "org.opencontainers.image.created=$created"
  umoci gc --layout "$layout"
} >"$log" 2>&1 || fail "umoci failed"
chmod -R a+rX "$layout"  # umoci writes index.json for its owner only
# Local files to local files: no registry, no signatures to check.
skopeo --insecure-policy copy --quiet "oci:$image" \
  "docker-archive:$archive:tributary:$version" >"$log" 2>&1 \
  || fail "skopeo failed"
echo "$layout"
echo "$archive"
